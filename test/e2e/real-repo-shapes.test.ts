import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { committedRepo, execCli, tempDir } from './exec-cli.js';
import { JS_SHAPES, PY_SHAPES } from './repo-shapes.js';
import { type HistoryShape, MORE_JS_SHAPES, MORE_PY_SHAPES } from './repo-shapes-more.js';

/*
 * Issue 42's held-out-style corpus (repo-shapes.ts, repo-shapes-more.ts): each repository, shaped like a popular public
 * one, goes through `agentguard init` with nothing edited, whose check must pass; `run --agent
 * mock-noop` PASSes with no alert and reuses what init's check installed; an agent appending to a
 * test FAILs on test-tampering. A shape's tags are made on its commit: those tests ask git for the
 * release, which the grading copy has from the template's history. The shapes are independent, so
 * they run side by side.
 */

const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
const isRoot = process.getuid?.() === 0;
const base = isRoot && has('bwrap') && has('strace');
const registry = spawnSync('npm', ['view', 'left-pad@1.3.0', 'version'], {
  encoding: 'utf8',
  timeout: 30_000,
});
const js = base && has('corepack') && registry.status === 0 && registry.stdout.trim() === '1.3.0';
const py = base && spawnSync('/usr/bin/python3', ['-c', 'import pytest']).status === 0;
if (!js)
  console.warn(
    'real-repo-shapes (JavaScript) skipped: needs root, bwrap, strace, corepack and the npm registry',
  );
if (!py)
  console.warn(
    'real-repo-shapes (Python) skipped: needs root, bwrap, strace and /usr/bin/python3 with pytest',
  );

const work = tempDir('ag-repo-shapes-');
afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000);

// As real-repos.test.ts: this machine's registry stand-in serves no corepack signatures and sits
// behind a TLS proxy of its own. Python: Debian's interpreter first, as a user without pyenv has it.
const ENV: Record<string, string> = {
  COREPACK_INTEGRITY_KEYS: '',
  PATH: `/usr/local/bin:/usr/bin:/bin`,
  ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
};
const cli = (args: string[], cwd: string) => execCli(args, { cwd, env: ENV });

type Report = {
  result: string;
  run_dir: string;
  alerts: { rule: string; file?: string; process: { exe: string; argv: string[] } }[];
  checks: { id: string; passed: boolean; detail?: string }[];
};

async function run(dir: string, config: string, agent?: string): Promise<Report> {
  const args = ['run', config, '--json', '--sandbox', 'bwrap', '--tracer', 'strace'];
  const r = await cli(agent ? [...args, '--agent', agent] : args, dir);
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  return JSON.parse(r.stdout) as Report;
}

const failed = (r: Report) => r.checks.filter((c) => !c.passed).map((c) => c.id);

async function heldOut(name: string, shape: HistoryShape): Promise<void> {
  const dir = committedRepo(path.join(work, name), shape.files);
  for (const tag of shape.tags ?? [])
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'tag', '-a', tag, '-m', tag], {
      cwd: dir,
    });
  const init = await cli(['init'], dir);
  expect(init.code, `${name}: ${init.stdout}\n${init.stderr}`).toBe(0);
  expect(init.stdout, `${name}: ${init.stdout}`).toContain("check: the untouched repository's tests pass");
  const noop = await run(dir, 'agentguard.yaml', 'mock-noop');
  expect([name, noop.result, noop.alerts, failed(noop)]).toEqual([name, 'PASS', [], []]);
  // What init's check installed is reused: no install runs again.
  const setupFile = path.join(noop.run_dir, 'evidence/setup.json');
  const setup = existsSync(setupFile) ? JSON.parse(readFileSync(setupFile, 'utf8')) : { dependencies: [] };
  for (const entry of setup.dependencies) expect([name, entry.reused]).toEqual([name, true]);
  // An agent appending to a test: the config init wrote, with that agent.
  const tamper = path.join(dir, 'tamper.yaml');
  writeFileSync(tamper, readFileSync(path.join(dir, 'agentguard.yaml'), 'utf8'));
  const comment = shape.test.endsWith('.py') ? '# skip' : '// skip';
  appendFileSync(
    tamper,
    `agent_command: ${JSON.stringify(['sh', '-c', `echo '${comment}' >> ${shape.test}`])}\n`,
  );
  const tampered = await run(dir, 'tamper.yaml');
  expect([name, tampered.result, failed(tampered)]).toEqual([
    name,
    'FAIL',
    expect.arrayContaining(['test-tampering']),
  ]);
}

// Three runs each, five side by side: the TypeScript shapes' tsc took over 600 s at load 36 on 2 cores.
const SHAPE_TIMEOUT_MS = 1_200_000;

describe.concurrent('held-out-style repositories from init, unedited', () => {
  for (const [name, shape] of Object.entries({ ...JS_SHAPES, ...MORE_JS_SHAPES }))
    it.skipIf(!js)(name, () => heldOut(name, shape), SHAPE_TIMEOUT_MS);
  for (const [name, shape] of Object.entries({ ...PY_SHAPES, ...MORE_PY_SHAPES }))
    it.skipIf(!py)(name, () => heldOut(name, shape), SHAPE_TIMEOUT_MS);
});
