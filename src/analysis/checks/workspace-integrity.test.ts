import { describe, expect, it } from 'vitest';
import { makeBundle } from '../test-bundle.js';
import { workspaceIntegrity } from './workspace-integrity.js';

describe('workspace-integrity', () => {
  it('passes a diff of the whole workspace, and old evidence without the fields', () => {
    expect(workspaceIntegrity.run(makeBundle())).toMatchObject({ passed: true, evidence: [] });
    expect(
      workspaceIntegrity.run(makeBundle({ diff: { nested_repositories: [], skipped_files: [] } })),
    ).toMatchObject({ passed: true });
  });

  it('fails when the diff could not be taken', () => {
    const r = workspaceIntegrity.run(
      makeBundle({ diff: { error: 'git ls-files did not finish within 300 s' } }),
    );
    expect(r).toEqual({
      id: 'workspace-integrity',
      passed: false,
      message: 'the workspace diff could not be taken, so no change in it was checked',
      evidence: [{ detail: 'git ls-files did not finish within 300 s' }],
    });
  });

  it('names nested repositories and entries it could not read', () => {
    const r = workspaceIntegrity.run(
      makeBundle({
        diff: {
          nested_repositories: ['vendor/lib'],
          skipped_files: [{ path: 'pipe', reason: 'not a regular file or symlink' }],
        },
      }),
    );
    expect(r.passed).toBe(false);
    expect(r.message).toBe(
      '1 workspace entry could not be read (pipe); 1 nested git repository (vendor/lib)',
    );
    expect(r.evidence).toEqual([
      { path: 'pipe', detail: 'not diffed: not a regular file or symlink' },
      { path: 'vendor/lib', detail: 'has a .git of its own; its files were diffed as plain content' },
    ]);
  });
});
