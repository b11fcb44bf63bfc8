// A model provider for tests (excluded from the build by its name): real TLS with a CA made by
// openssl for the test, the four APIs streamed or not (the scripted model server behind it), and a
// key it checks like a provider does. It keeps what it was sent, to search for keys afterwards.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startModelServer } from '../model-server/index.js';
import type { ModelRecord, Trajectory } from '../model-server/types.js';

export type TestCa = { dir: string; caFile: string; ca: string; key: string; cert: string };

/** A CA and a certificate for 127.0.0.1 and localhost it signed, made with openssl. */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-relay-ca-'));
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=agentguard test CA',
  );
  writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  ssl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.pem'),
    '-days',
    '2',
    '-extfile',
    f('san.ext'),
  );
  return {
    dir,
    caFile: f('ca.pem'),
    ca: readFileSync(f('ca.pem'), 'utf8'),
    key: readFileSync(f('server.key'), 'utf8'),
    cert: readFileSync(f('server.pem'), 'utf8'),
  };
}

export type Received = { path: string; headers: Record<string, string | string[] | undefined>; body: string };

export type TestProvider = {
  url: string;
  /** Every request that reached the provider, as sent (headers and body). */
  received: Received[];
  /** The scripted model's records: the usage it stated in each answer. */
  records(): readonly ModelRecord[];
  stop(): Promise<void>;
};

/** The key a request carries in any of the places the four APIs' clients put it. */
export function presentedKey(r: { headers: Received['headers']; path: string }): string | null {
  const h = (n: string) => {
    const v = r.headers[n];
    return Array.isArray(v) ? v[0] : v;
  };
  const bearer = /^Bearer (.+)$/.exec(h('authorization') ?? '')?.[1];
  return (
    bearer ?? h('x-api-key') ?? h('x-goog-api-key') ?? new URL(r.path, 'https://x').searchParams.get('key')
  );
}

/** An HTTPS provider answering from `trajectory`, only to requests that carry `key`. */
export async function startTestProvider(
  ca: TestCa,
  trajectory: Trajectory,
  key: string,
): Promise<TestProvider> {
  const model = await startModelServer({ script: trajectory });
  const received: Received[] = [];
  const server: Server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path_ = req.url ?? '/';
      received.push({ path: path_, headers: req.headers, body: body.toString('utf8') });
      if (presentedKey({ headers: req.headers, path: path_ }) !== key) {
        const text = JSON.stringify({
          error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
        });
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(text);
        return;
      }
      const up = httpRequest(
        {
          host: '127.0.0.1',
          port: model.port,
          method: req.method,
          path: path_,
          headers: { 'content-type': 'application/json' },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    received,
    records: () => model.server.records,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await model.server.stop();
    },
  };
}

export function removeTestCa(ca: TestCa): void {
  rmSync(ca.dir, { recursive: true, force: true });
}
