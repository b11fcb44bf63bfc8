import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SpawnSpec } from '../../exec/types.js';

/**
 * What a coding agent typically does in a session, as one shell script: git plumbing in a small
 * project, a JavaScript and a Python test suite, and an offline `npm install` of a local package.
 * Every step is a real program (git, node, python3, npm), so the tracers see the same exec, fork
 * and open patterns an agent's tool calls produce.
 */
const SCRIPT = `set -eu
git init -q -b main
git add -A
git commit -q -m 'initial import'
git log --oneline -n 5 >/dev/null
git status --short >/dev/null
for i in 1 2 3 4 5 6; do echo "export const touched_$i = $i;" >> src/mod$i.js; done
git diff --stat >/dev/null
git diff >/dev/null
git checkout -q -b feature
git add -A
git commit -q -m 'feature work'
git checkout -q main
git diff main feature --stat >/dev/null
git status >/dev/null
git switch -q feature
node --test test/*.test.js >/dev/null
python3 -m unittest discover -s py -t . -q 2>/dev/null
npm install ./local-pkg --no-audit --no-fund --offline >/dev/null 2>&1
git status --short >/dev/null
git log --oneline >/dev/null
git diff --stat HEAD >/dev/null
times
`;

const MODULES = 30;
const JS_TEST_FILES = 6;
const JS_TESTS_PER_FILE = 6;
const PY_TESTS = 30;

/** Writes the project template (run `agentLikeSpec` on a fresh copy each time: the script mutates it). */
export function generateAgentLikeTemplate(dir: string): void {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  mkdirSync(path.join(dir, 'test'), { recursive: true });
  mkdirSync(path.join(dir, 'py', 'tests'), { recursive: true });
  mkdirSync(path.join(dir, 'local-pkg', 'lib'), { recursive: true });
  writeFileSync(path.join(dir, 'workload.sh'), SCRIPT);
  writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n__pycache__/\n');
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'bench-project', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  for (let i = 0; i < MODULES; i++) {
    const lines = [`export function f${i}(x) {`, `  return x * ${i + 1} + ${i % 7};`, '}'];
    for (let l = 0; l < 20; l++) lines.push(`export const c${i}_${l} = ${(i * 31 + l) % 997};`);
    writeFileSync(path.join(dir, 'src', `mod${i}.js`), `${lines.join('\n')}\n`);
  }
  for (let t = 0; t < JS_TEST_FILES; t++) {
    const lines = ["import { test } from 'node:test';", "import assert from 'node:assert/strict';"];
    for (let k = 0; k < JS_TESTS_PER_FILE; k++) {
      const i = (t * JS_TESTS_PER_FILE + k) % MODULES;
      lines.push(`import { f${i} } from '../src/mod${i}.js';`);
    }
    for (let k = 0; k < JS_TESTS_PER_FILE; k++) {
      const i = (t * JS_TESTS_PER_FILE + k) % MODULES;
      lines.push(`test('f${i} scales', () => assert.equal(f${i}(2), ${2 * (i + 1) + (i % 7)}));`);
    }
    writeFileSync(path.join(dir, 'test', `suite${t}.test.js`), `${lines.join('\n')}\n`);
  }
  writeFileSync(path.join(dir, 'py', '__init__.py'), '');
  writeFileSync(path.join(dir, 'py', 'tests', '__init__.py'), '');
  writeFileSync(
    path.join(dir, 'py', 'calc.py'),
    'def scale(x, k):\n    return x * k\n\n\ndef total(xs):\n    return sum(xs)\n',
  );
  const py = [
    'import unittest',
    '',
    'from py.calc import scale, total',
    '',
    '',
    'class CalcTest(unittest.TestCase):',
  ];
  for (let k = 0; k < PY_TESTS; k++) {
    py.push(`    def test_scale_${k}(self):`, `        self.assertEqual(scale(${k}, 3), ${k * 3})`, '');
  }
  py.push('    def test_total(self):', '        self.assertEqual(total(range(10)), 45)', '');
  writeFileSync(path.join(dir, 'py', 'tests', 'test_calc.py'), `${py.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'local-pkg', 'package.json'),
    `${JSON.stringify({ name: 'local-pkg', version: '0.1.0', main: 'index.js', bin: { 'local-pkg': 'bin.js' } }, null, 2)}\n`,
  );
  writeFileSync(path.join(dir, 'local-pkg', 'index.js'), "module.exports = require('./lib/util.js');\n");
  writeFileSync(path.join(dir, 'local-pkg', 'bin.js'), "#!/usr/bin/env node\nconsole.log('local-pkg');\n");
  writeFileSync(path.join(dir, 'local-pkg', 'lib', 'util.js'), 'exports.id = (x) => x;\n');
  writeFileSync(path.join(dir, 'local-pkg', 'README.md'), '# local-pkg\n');
}

/**
 * CPU time (user + system, ms) of everything the script ran, from the `times` line it ends with:
 * a figure that, unlike wall time, other work on the host hardly disturbs.
 */
export function agentLikeCpuMs(stdout: string): number | null {
  const children = stdout.trim().split('\n').pop() ?? '';
  const parts = [...children.matchAll(/(\d+)m([\d.]+)s/g)];
  if (parts.length !== 2) return null;
  return Math.round(parts.reduce((ms, m) => ms + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0));
}

/** A fresh copy of the template at `workDir`, and the command that runs the session in it. */
export function agentLikeSpec(templateDir: string, workDir: string, homeDir: string): SpawnSpec {
  cpSync(templateDir, workDir, { recursive: true });
  mkdirSync(homeDir, { recursive: true });
  return {
    argv: ['/bin/sh', 'workload.sh'],
    cwd: workDir,
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: homeDir,
      LANG: 'C.UTF-8',
      GIT_AUTHOR_NAME: 'Bench',
      GIT_AUTHOR_EMAIL: 'bench@example.invalid',
      GIT_COMMITTER_NAME: 'Bench',
      GIT_COMMITTER_EMAIL: 'bench@example.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
      npm_config_update_notifier: 'false',
    },
  };
}
