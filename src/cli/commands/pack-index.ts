import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  type EntryVerdict,
  installFromIndex,
  loadPackIndex,
  verifyIndexEntry,
} from '../../pack/pack-index.js';
import type { PackProblem } from '../../pack/read-zip.js';
import { generateEd25519, generateHmacKey } from '../../pack/signing.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';
import { UsageError } from '../usage-error.js';
import { type PackOptions, printProblems, reportImport, verifyOptions } from './pack-output.js';

/* keys generate, index verify, index install (docs/packs.md). */

export function keysGenerate(io: CliIO, opts: { out?: string; name?: string; hmac?: boolean }): number {
  if (opts.out === undefined) throw new UsageError("'keys generate' needs --out DIR. Fix: add --out keys.");
  const name = opts.name ?? 'agentguard';
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
    throw new UsageError(
      `--name '${name}' is not a plain file name. Fix: use letters, digits, '.', '_' or '-'.`,
    );
  const dir = path.resolve(opts.out);
  mkdirSync(dir, { recursive: true });
  if (opts.hmac) {
    const { file } = generateHmacKey(dir, name);
    io.out(`${file}: a shared HMAC-SHA256 key (keep it secret: anyone who holds it can sign)`);
    return 0;
  }
  const k = generateEd25519(dir, name);
  io.out(
    `${k.publicFile}: public key ${k.id} (give this to those who verify)\n${k.privateFile}: private key (keep it secret)`,
  );
  return 0;
}

function entryLine(v: EntryVerdict): string[] {
  const status =
    v.status === 'verified' ? 'verified' : v.status === 'remote-only' ? 'url only (not fetched)' : 'FAILED';
  return [v.entry.name, v.entry.version, status, v.entry.path ?? v.entry.url ?? ''];
}

export async function indexVerify(io: CliIO, indexFile: string, opts: PackOptions): Promise<number> {
  const index = loadPackIndex(indexFile);
  const trust = verifyOptions(opts);
  const results: EntryVerdict[] = [];
  for (const entry of index.entries) results.push(await verifyIndexEntry(entry, trust));
  const failed = results.filter((r) => r.status === 'failed');
  if (opts.json)
    io.out(
      JSON.stringify(
        {
          index: index.file,
          ok: failed.length === 0,
          entries: results.map((r) => ({
            name: r.entry.name,
            version: r.entry.version,
            status: r.status,
            ...(r.status === 'failed' ? { problems: r.problems } : {}),
            ...(r.status === 'verified' ? { root: r.verdict.ok ? r.verdict.root : null } : {}),
          })),
        },
        null,
        2,
      ),
    );
  else {
    for (const r of failed)
      printProblems(io, `${index.file}: ${r.entry.name}@${r.entry.version}`, r.problems);
    io.out(renderTable(['name', 'version', 'status', 'where'], results.map(entryLine)));
  }
  return failed.length === 0 ? 0 : 2;
}

export async function indexInstall(
  io: CliIO,
  indexFile: string,
  spec: string,
  opts: PackOptions,
): Promise<number> {
  if (opts.into === undefined)
    throw new UsageError("'index install' needs --into DIR. Fix: add --into benchmarks-imported.");
  const index = loadPackIndex(indexFile);
  const { entry, result } = await installFromIndex(index, spec, {
    ...verifyOptions(opts),
    into: opts.into,
    force: opts.force === true,
    ...(opts.registryOut === undefined ? {} : { registryOut: opts.registryOut }),
    ...(opts.suiteOut === undefined ? {} : { suiteOut: opts.suiteOut }),
  });
  const label = `${index.file}: ${entry.name}@${entry.version} (${entry.path})`;
  if ('problems' in result && !('verdict' in result)) {
    printProblems(io, label, result.problems);
    io.err(`agentguard: ${label}: refused; nothing was written to ${path.resolve(opts.into)}.`);
    return 2;
  }
  const r = result as Exclude<typeof result, { problems: PackProblem[] }>;
  return reportImport(io, label, r.verdict, r.into, r.written, opts);
}
