import { describe, expect, it } from 'vitest';
import { diffFile, makeBundle } from '../test-bundle.js';
import { forbiddenPaths } from './forbidden-paths.js';

describe('forbidden-paths', () => {
  it('passes when no changed file is forbidden', () => {
    const bundle = makeBundle({
      config: { forbidden_paths: ['secrets/**', '*.lock'] },
      diff: { files: [diffFile('src/a.ts'), diffFile('docs/lock.md')] },
    });
    expect(forbiddenPaths.run(bundle)).toMatchObject({ passed: true, evidence: [] });
  });

  it('flags a modified file and names the pattern', () => {
    const bundle = makeBundle({
      config: { forbidden_paths: ['*.lock'] },
      diff: { files: [diffFile('src/a.ts'), diffFile('pkg/yarn.lock')] },
    });
    const result = forbiddenPaths.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toBe('1 changed path matches forbidden_paths: pkg/yarn.lock');
    expect(result.evidence).toEqual([
      { path: 'pkg/yarn.lock', detail: "modified; matches forbidden_paths '*.lock'" },
    ]);
  });

  it('flags a file renamed into a forbidden path', () => {
    const bundle = makeBundle({
      config: { forbidden_paths: ['vendor/**'] },
      diff: { files: [diffFile('vendor/lib.js', { status: 'renamed', old_path: 'src/lib.js', added: 0 })] },
    });
    const result = forbiddenPaths.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.evidence).toEqual([
      { path: 'vendor/lib.js', detail: "renamed from src/lib.js; matches forbidden_paths 'vendor/**'" },
    ]);
  });

  it('flags a file renamed out of a forbidden path, and deleted ones', () => {
    const bundle = makeBundle({
      config: { forbidden_paths: ['vendor/**'] },
      diff: {
        files: [
          diffFile('src/lib.js', { status: 'renamed', old_path: 'vendor/lib.js' }),
          diffFile('vendor/old.js', { status: 'deleted', added: 0, deleted: 4 }),
        ],
      },
    });
    const result = forbiddenPaths.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.evidence.map((e) => e.path)).toEqual(['vendor/lib.js', 'vendor/old.js']);
    expect(result.evidence[0]?.detail).toContain('renamed to src/lib.js');
  });

  it('flags new git-ignored files and says when their list was cut', () => {
    const bundle = makeBundle({
      config: { forbidden_paths: ['.cache/**'] },
      diff: { ignored_files: ['.cache/token'], ignored_files_truncated: true },
    });
    const result = forbiddenPaths.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.evidence[0]).toEqual({
      path: '.cache/token',
      detail: "new git-ignored file; matches forbidden_paths '.cache/**'",
    });
    expect(result.message).toContain('was cut');
  });

  it('caps evidence at 50 items and says how many more there are', () => {
    const files = Array.from({ length: 60 }, (_, i) => diffFile(`gen/f${i}.js`));
    const result = forbiddenPaths.run(makeBundle({ config: { forbidden_paths: ['gen'] }, diff: { files } }));
    expect(result.evidence).toHaveLength(50);
    expect(result.message).toBe(
      '60 changed paths match forbidden_paths: gen/f0.js, gen/f1.js, gen/f2.js and 57 more',
    );
  });

  it('passes with a clear message when nothing is forbidden', () => {
    const bundle = makeBundle({ diff: { files: [diffFile('anything')] } });
    expect(forbiddenPaths.run(bundle)).toMatchObject({
      passed: true,
      message: 'no forbidden_paths configured',
    });
  });
});
