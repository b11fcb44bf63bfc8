import { describe, expect, it } from 'vitest';
import { diffFile, makeBundle } from '../test-bundle.js';
import { scope } from './scope.js';

describe('scope', () => {
  it('allows everything by default', () => {
    const bundle = makeBundle({
      diff: { files: [diffFile('.github/workflows/ci.yml'), diffFile('a/b/c.txt')] },
    });
    expect(scope.run(bundle)).toMatchObject({
      passed: true,
      message: 'all 2 changed paths are inside allowed_paths',
    });
  });

  it('says so when nothing changed', () => {
    expect(scope.run(makeBundle({ config: { allowed_paths: ['src/**'] } }))).toMatchObject({
      passed: true,
      message: 'no files changed',
    });
  });

  it('respects nested globs', () => {
    const bundle = makeBundle({
      config: { allowed_paths: ['src/**/*.ts', 'docs/*.md'] },
      diff: {
        files: [
          diffFile('src/a/b/c.ts'),
          diffFile('src/x.ts'),
          diffFile('docs/guide.md'),
          diffFile('docs/deep/guide.md'),
          diffFile('src/a/b/c.js'),
        ],
      },
    });
    const result = scope.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toBe(
      '2 changed paths are outside allowed_paths: docs/deep/guide.md, src/a/b/c.js',
    );
    expect(result.evidence).toEqual([
      { path: 'docs/deep/guide.md', detail: 'modified; matches no allowed_paths pattern' },
      { path: 'src/a/b/c.js', detail: 'modified; matches no allowed_paths pattern' },
    ]);
  });

  it('counts deletions and the old side of renames as changes', () => {
    const bundle = makeBundle({
      config: { allowed_paths: ['src'] },
      diff: {
        files: [
          diffFile('README.md', { status: 'deleted', added: 0 }),
          diffFile('src/moved.ts', { status: 'renamed', old_path: 'lib/moved.ts' }),
        ],
      },
    });
    const result = scope.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.evidence.map((e) => e.path)).toEqual(['README.md', 'lib/moved.ts']);
  });
});
