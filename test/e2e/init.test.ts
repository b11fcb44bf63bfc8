import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { committedRepo, execCli, ownStderr, tempDir } from './exec-cli.js';

/*
 * The "done when": a fresh clone of a small repository, `agentguard init`, then
 * `agentguard run agentguard.yaml --agent mock-noop` with nothing edited. Each repository has one
 * failing test, so the do-nothing agent must be judged FAIL on tests-pass by the project's own
 * runner: proof that the detected command ran in the sandbox, not that a config merely loaded.
 */

const work = tempDir('ag-init-e2e-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The system's programs first: init names a python3 under a HOME (pyenv) by its real path, which
// these tests of detection do not expect.
const SYSTEM_FIRST = { PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}` };

const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

type Repo = { files: Record<string, string>; program: string; command: string[] };

const REPOS: Record<string, Repo> = {
  node: {
    program: 'npm',
    command: ['npm', 'test'],
    files: {
      'package.json': `${JSON.stringify({ name: 'adder', version: '1.0.0', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
      'src/add.js': 'exports.add = (a, b) => a - b;\n',
      'test/add.test.js':
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.equal(add(1, 2), 3));\n",
    },
  },
  python: {
    program: 'python3',
    command: ['python3', '-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'],
    files: {
      'pyproject.toml': '[project]\nname = "adder"\nversion = "1.0.0"\n',
      'adder/__init__.py': 'def add(a, b):\n    return a - b\n',
      'tests/__init__.py': '',
      'tests/test_add.py':
        'import unittest\nfrom adder import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n',
    },
  },
  go: {
    program: 'go',
    command: ['go', 'test', './...'],
    files: {
      'go.mod': 'module example.com/adder\n\ngo 1.19\n',
      'add.go': 'package adder\n\nfunc Add(a, b int) int { return a - b }\n',
      'add_test.go':
        'package adder\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("1+2 is not 3")\n\t}\n}\n',
    },
  },
};

/** A clone as a user has it, under the test's folder. */
function clone(name: string, files: Record<string, string>): string {
  return committedRepo(path.join(work, name), files);
}

describe('agentguard init, then run without editing the file', () => {
  for (const [language, repo] of Object.entries(REPOS)) {
    const missing = !has(repo.program);
    if (missing) console.log(`skipping ${language}: ${repo.program} is not installed`);
    it.skipIf(missing)(
      `${language}: init finds the tests; mock-noop runs and fails on them`,
      async () => {
        const dir = clone(language, repo.files);
        // The check runs the written config once: the failing test is reported, with its output.
        const init = await execCli(['init'], { cwd: dir, env: SYSTEM_FIRST });
        expect(ownStderr(init.stderr)).toBe('');
        expect(init.code).toBe(1);
        expect(init.stdout).toContain(`tests: ${repo.command.join(' ')}`);
        expect(init.stdout).toMatch(/check: the untouched repository's tests FAIL in the sandbox \(exit \d+/);
        expect(init.stdout).toMatch(/add|1\+2 is not 3|AssertionError/);
        expect(readFileSync(path.join(dir, 'agentguard.yaml'), 'utf8')).toMatch(
          /^# yaml-language-server: \$schema=/,
        );
        // A second init refuses rather than overwrite.
        const again = await execCli(['init', '--no-check'], { cwd: dir, env: SYSTEM_FIRST });
        expect(again.code).toBe(2);
        expect(again.stderr).toContain('--force');

        const run = await execCli(['run', 'agentguard.yaml', '--agent', 'mock-noop', '--json'], {
          cwd: dir,
          env: SYSTEM_FIRST,
        });
        expect(run.stderr).not.toMatch(/^agentguard: /m);
        expect(run.code).toBe(1);
        const report = JSON.parse(run.stdout);
        expect(report.result).toBe('FAIL');
        const testsPass = report.checks.find((c: { id: string }) => c.id === 'tests-pass');
        expect(testsPass.passed).toBe(false);
        const tests = report.commands.find((c: { role: string }) => c.role === 'tests');
        // What ran is the config's command, with the flag that makes the runner name its tests.
        expect(parse(readFileSync(path.join(dir, 'agentguard.yaml'), 'utf8')).test_command).toEqual(
          repo.command,
        );
        expect(tests.argv.filter((a: string) => repo.command.includes(a))).toEqual(repo.command);
        expect(tests.exit_code).not.toBe(0);
        // The repository was judged in place: its output folder is not in the agent's workspace.
        expect(report.run_dir.startsWith(path.join(dir, '.agentguard', 'runs'))).toBe(true);
        expect(existsSync(path.join(report.run_dir, 'repo', '.agentguard'))).toBe(false);
        expect(existsSync(path.join(report.run_dir, 'repo', 'agentguard.yaml'))).toBe(true);
      },
      120_000,
    );
  }

  it('schema prints each format and refuses an unknown one in one sentence', async () => {
    const config = await execCli(['schema', 'config'], { cwd: work });
    expect(config.code).toBe(0);
    const schema = JSON.parse(config.stdout);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'task', 'repo', 'test_command']));
    const bad = await execCli(['schema', 'configs'], { cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "agentguard: 'configs' is not a file format. Fix: use one of config, ci, suite, matrix, rules, profile.\n",
    );
  });

  it.skipIf(!has('npm'))(
    '--ci: the policy and workflow it writes drive `agentguard ci` unedited',
    async () => {
      const dir = clone('node-ci', REPOS.node?.files ?? {});
      const init = await execCli(['init', '--ci', '--action', 'acme/agentguard@v1'], { cwd: dir });
      expect(ownStderr(init.stderr)).toBe('');
      expect(init.code).toBe(0);
      expect(readFileSync(path.join(dir, '.github/workflows/agentguard.yml'), 'utf8')).toContain(
        'uses: acme/agentguard@v1',
      );
      expect(init.stdout).not.toContain('placeholder');
      // Without --action (and this agentguard not cloned from GitHub) the workflow takes the action
      // from repository variables, and init says which to set; no placeholder repository anywhere.
      const bare = clone('node-ci-bare', REPOS.node?.files ?? {});
      const plain = await execCli(['init', '--ci'], { cwd: bare });
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toMatch(
        /^set: the repository variables AGENTGUARD_REPOSITORY .* and AGENTGUARD_REF /m,
      );
      expect(plain.stdout).toContain('--action OWNER/REPO@REF');
      const written = readFileSync(path.join(bare, '.github/workflows/agentguard.yml'), 'utf8');
      expect(written).toContain('uses: ./.agentguard-action');
      expect(written).not.toContain('your-org');
      const refused = await execCli(['init', '--ci', '--force', '--action', 'your-org'], { cwd: bare });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("--action 'your-org' is not an action reference");
      // The policy is committed first (CI judges a change by the policy of the commit it starts
      // from); the workflow stays the working tree's change.
      const git = (...args: string[]) =>
        spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
      expect(git('add', '.agentguard.yaml').status).toBe(0);
      expect(git('commit', '-qm', 'agentguard policy').status).toBe(0);
      const ci = await execCli(['ci', '--json'], { cwd: dir });
      // Only the note that says which policy judged the working tree.
      expect(ci.stderr).not.toMatch(/^agentguard: (?!note: judging the working tree)/m);
      expect(ci.code).toBe(1);
      const report = JSON.parse(ci.stdout);
      expect(report.checks.find((c: { id: string }) => c.id === 'tests-pass').passed).toBe(false);
      // The new files are the working tree's changes; the workflow is a CI file, which the policy forbids.
      expect(report.checks.find((c: { id: string }) => c.id === 'forbidden-paths').passed).toBe(false);
    },
    120_000,
  );
});
