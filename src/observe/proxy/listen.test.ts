import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeServer, listenUnix } from './listen.js';
import { connectPath, fitsSunPath } from './unix-path.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-listen-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('listenUnix', () => {
  it('a socket deeper than sun_path holds (a run folder in a long checkout path) is bound, reached by its full name and removed on close', async () => {
    const dir = path.join(root, 'a'.repeat(60), 'b'.repeat(60), 'net');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'proxy.sock');
    expect(fitsSunPath(file)).toBe(false);
    const server = createServer((s) => s.end('hello'));
    await listenUnix(server, file);
    expect(existsSync(file)).toBe(true);
    const said = await new Promise<string>((resolve, reject) => {
      let text = '';
      createConnection({ path: connectPath(file) })
        .on('data', (c) => {
          text += c;
        })
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    expect(said).toBe('hello');
    await closeServer(server);
    expect(existsSync(file)).toBe(false);
  });
});
