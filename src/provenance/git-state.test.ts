import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../package-root.js';
import { agentguardSource, prefetchAgentguardSource } from './git-state.js';
import { ManifestSchema } from './manifest-schema.js';

const work = mkdtempSync(path.join(tmpdir(), 'ag-gitstate-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    encoding: 'utf8',
  }).trim();

function pkg(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'agentguard', version }));
  return dir;
}

describe('agentguardSource', () => {
  it('a git checkout gives its commit, clean, then dirty once a tracked file changes', () => {
    const clean = pkg(path.join(work, 'clean'), '1.2.3');
    git(clean, 'init', '-q');
    git(clean, 'add', 'package.json');
    git(clean, 'commit', '-qm', 'first');
    const head = git(clean, 'rev-parse', 'HEAD');
    // Untracked files do not make it dirty (as git describe --dirty).
    writeFileSync(path.join(clean, 'untracked.txt'), 'x');
    expect(agentguardSource(clean)).toEqual({
      source: 'checkout',
      version: '1.2.3',
      commit: head,
      dirty: false,
    });

    const dirty = pkg(path.join(work, 'dirty'), '1.2.3');
    git(dirty, 'init', '-q');
    git(dirty, 'add', 'package.json');
    git(dirty, 'commit', '-qm', 'first');
    writeFileSync(path.join(dirty, 'package.json'), JSON.stringify({ name: 'agentguard', version: '1.2.4' }));
    expect(agentguardSource(dirty)).toMatchObject({ source: 'checkout', version: '1.2.4', dirty: true });
  });

  it('a folder outside any repository gives the package version only', () => {
    const plain = pkg(path.join(work, 'plain'), '0.9.0');
    expect(agentguardSource(plain)).toEqual({ source: 'package', version: '0.9.0' });
  });

  it('a package installed inside another project repository is not a checkout of agentguard', () => {
    const project = path.join(work, 'project');
    mkdirSync(project);
    git(project, 'init', '-q');
    const installed = pkg(path.join(project, 'node_modules', 'agentguard'), '2.0.0');
    git(project, 'add', '-f', '.');
    git(project, 'commit', '-qm', 'vendored');
    expect(agentguardSource(installed)).toEqual({ source: 'package', version: '2.0.0' });
  });

  it('looked up in the background (as a run does while it runs), the answer is the same', async () => {
    const repo = (name: string, dirty: boolean) => {
      const dir = pkg(path.join(work, name), '3.0.0');
      git(dir, 'init', '-q');
      git(dir, 'add', 'package.json');
      git(dir, 'commit', '-qm', 'first');
      if (dirty) writeFileSync(path.join(dir, 'package.json'), '{"name":"agentguard","version":"3.0.1"}');
      return dir;
    };
    const clean = repo('bg-clean', false);
    const dirty = repo('bg-dirty', true);
    const plain = pkg(path.join(work, 'bg-plain'), '0.9.1');
    await Promise.all([clean, dirty, plain].map((dir) => prefetchAgentguardSource(dir)));
    expect(agentguardSource(clean)).toEqual({
      source: 'checkout',
      version: '3.0.0',
      commit: git(clean, 'rev-parse', 'HEAD'),
      dirty: false,
    });
    expect(agentguardSource(dirty)).toMatchObject({ source: 'checkout', version: '3.0.1', dirty: true });
    expect(agentguardSource(plain)).toEqual({ source: 'package', version: '0.9.1' });
  });

  it('this agentguard, run from its worktree, is a checkout at the worktree HEAD', () => {
    const root = packageRoot();
    const found = agentguardSource();
    expect(found).toMatchObject({ source: 'checkout', commit: git(root, 'rev-parse', 'HEAD') });
  });
});

describe('manifest git field', () => {
  const base = {
    kind: 'run',
    run_id: 'r',
    batch: null,
    started_at: 't',
    finished_at: 't',
    sealed_at: 't',
    agentguard: { version: '1' },
    host: { hostname: 'h', kernel: 'k', platform: 'linux', arch: 'x64', node: 'v20' },
    observation: {
      sandbox: 'local',
      sandbox_isolated: false,
      tracer: 'off',
      tracer_requested: 'off',
      network: 'none',
      fallbacks: [],
    },
    hashes: { config_snapshot: 'a'.repeat(64), config_source: null, benchmark_template: null, rules: null },
    agent: { name: 'a', adapter: 'mock', version: null, model: null, argv: [] },
    verdict: { result: 'PASS', score: 100 },
    files: [],
    trace: { file: 'trace.jsonl', records: 1, head: 'b'.repeat(64) },
  };
  const git = { agentguard: { source: 'package', version: '1' }, task_baseline: null };

  it('may be absent from a schema 1 manifest (sealed before it existed)', () => {
    expect(ManifestSchema.safeParse({ ...base, schema_version: 1 }).success).toBe(true);
  });

  it('is required from schema 2 on, and a checkout needs its commit', () => {
    const missing = ManifestSchema.safeParse({ ...base, schema_version: 2 });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.path).toEqual(['git']);
    expect(ManifestSchema.safeParse({ ...base, schema_version: 2, git }).success).toBe(true);
    const noCommit = { ...git, agentguard: { source: 'checkout', version: '1', dirty: false } };
    expect(ManifestSchema.safeParse({ ...base, schema_version: 2, git: noCommit }).success).toBe(false);
  });
});
