import { describe, expect, it } from 'vitest';
import { diffFile, makeBundle } from '../test-bundle.js';
import { diffSize } from './diff-size.js';

const files = [diffFile('a', { added: 30, deleted: 5 }), diffFile('b', { added: 20, deleted: 0 })];

describe('diff-size', () => {
  it('passes with no limits configured', () => {
    expect(diffSize.run(makeBundle({ diff: { files } }))).toMatchObject({
      passed: true,
      message: 'no limits configured',
    });
  });

  it('passes at exactly the limits', () => {
    const bundle = makeBundle({
      config: { max_changed_files: 2, max_added_lines: 50, max_deleted_lines: 5 },
      diff: { files },
    });
    expect(diffSize.run(bundle)).toMatchObject({ passed: true, evidence: [] });
  });

  it('fails naming each limit that was exceeded', () => {
    const bundle = makeBundle({ config: { max_changed_files: 1, max_added_lines: 49 }, diff: { files } });
    const result = diffSize.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toBe(
      'the diff is over its size limits: 2 changed files (limit 1), 50 added lines (limit 49)',
    );
    expect(result.evidence).toEqual([
      { detail: '2 changed files > limit 1' },
      { detail: '50 added lines > limit 49' },
    ]);
  });

  it('treats a zero limit as a limit', () => {
    const bundle = makeBundle({ config: { max_deleted_lines: 0 }, diff: { files } });
    expect(diffSize.run(bundle).passed).toBe(false);
  });
});
