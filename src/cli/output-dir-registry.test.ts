import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { COMMANDS } from './registry/index.js';

const work = mkdtempSync(path.join(tmpdir(), 'output-dir-registry-'));
const file = path.join(work, 'a-file');
writeFileSync(file, 'not a folder\n');
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const err: string[] = [];
  const out: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, err: err.join('\n'), out: out.join('\n') };
}

describe("the output folder, checked from the registry's writesRuns before a command loads", () => {
  it('refuses a file as --output-dir for every command that writes there, naming the flag', async () => {
    const writers = [
      ['run', 'missing.yaml'],
      ['audit', 'static'],
      ['benchmarks', 'fuzz', '--seed', '1'],
      ['benchmark-overhead', 'missing.yaml'],
      ['diagnostics', 'ablation'],
      ['diagnostics', 'matrix-stress'],
      ['ci'],
    ];
    for (const argv of writers) {
      const r = await cli([...argv, '--output-dir', file]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toContain(`--output-dir ${file} is a file, not a folder.`);
    }
  });

  it('leaves alone an invocation that writes nothing: diagnostics mutations --list', () => {
    const writes = COMMANDS.find((c) => c.name === 'diagnostics')?.writesRuns;
    expect(typeof writes).toBe('function');
    if (typeof writes !== 'function') return;
    expect(writes(['mutations'], { list: true })).toBe(false);
    expect(writes(['mutations'], {})).toBe(true);
    expect(writes(['ablation'], { list: true })).toBe(true);
  });

  it('is declared by the commands that write runs or reports under --output-dir', () => {
    const writers = COMMANDS.filter((c) => c.writesRuns !== undefined).map((c) => c.name);
    expect(writers).toEqual(
      expect.arrayContaining(['run', 'demo', 'benchmark', 'suite', 'matrix', 'audit', 'benchmarks', 'ci']),
    );
  });
});
