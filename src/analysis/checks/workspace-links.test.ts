import { describe, expect, it } from 'vitest';
import { diffFile, makeBundle } from '../test-bundle.js';
import { workspaceLinks } from './workspace-links.js';

describe('workspace-links', () => {
  it('passes for links that stay inside the workspace', () => {
    const bundle = makeBundle({
      diff: { files: [diffFile('current', { status: 'added', link: { target: 'v2', escapes: false } })] },
    });
    expect(workspaceLinks.run(bundle)).toMatchObject({ passed: true, evidence: [] });
  });

  it('flags a symlink pointing outside the workspace', () => {
    const bundle = makeBundle({
      diff: {
        files: [
          diffFile('src/a.ts'),
          diffFile('data/keys', { status: 'added', link: { target: '/root/.ssh/id_rsa', escapes: true } }),
        ],
      },
    });
    expect(workspaceLinks.run(bundle)).toEqual({
      id: 'workspace-links',
      passed: false,
      message: '1 symlink points outside the workspace: data/keys',
      evidence: [{ path: 'data/keys', detail: 'added symlink to /root/.ssh/id_rsa' }],
    });
  });
});
