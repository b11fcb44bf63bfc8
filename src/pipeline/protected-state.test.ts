import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProtectedStateEvidence } from '../evidence/types.js';
import {
  compareProtected,
  ProtectedStateWatch,
  protectedEvidence,
  protectedRoots,
  snapshotProtected,
} from './protected-state.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'ag-protected-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function layout(name: string) {
  const root = path.join(work, name);
  const repoDir = path.join(root, 'repo');
  const hostHome = path.join(root, 'home');
  for (const d of ['.git/hooks', '.git/info', '.git/objects/ab', '.git/refs/heads', 'src'])
    mkdirSync(path.join(repoDir, d), { recursive: true });
  for (const d of ['.cache/pip', '.ssh', 'node_modules/x'])
    mkdirSync(path.join(hostHome, d), { recursive: true });
  writeFileSync(path.join(repoDir, '.git/config'), '[core]\n');
  writeFileSync(path.join(repoDir, '.git/hooks/pre-commit.sample'), '#!/bin/sh\n');
  writeFileSync(path.join(repoDir, '.git/HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(hostHome, '.bashrc'), '# rc\n');
  writeFileSync(path.join(hostHome, '.ssh/known_hosts'), 'x\n');
  writeFileSync(path.join(hostHome, '.cache/pip/a'), 'a\n');
  const roots = protectedRoots({ repoDir, hostHome, agentHome: '/home/agent' });
  return { repoDir, hostHome, roots };
}

describe('the protected state around the agent', () => {
  it('records HOME and the git folder by the path the agent sees, not caches or git data', () => {
    const { repoDir, roots } = layout('paths');
    const snap = snapshotProtected(roots);
    expect([...snap.entries.keys()].sort()).toEqual(
      [
        path.join(repoDir, '.git/config'),
        path.join(repoDir, '.git/hooks/pre-commit.sample'),
        '/home/agent/.bashrc',
        '/home/agent/.ssh/known_hosts',
      ].sort(),
    );
    expect(snap.incomplete).toEqual([]);
  });

  it('names every kind of change: created, rewritten, mode, link, removed, type', () => {
    const { repoDir, hostHome, roots } = layout('changes');
    symlinkSync('/etc/hostname', path.join(hostHome, '.profile'));
    const before = snapshotProtected(roots);
    writeFileSync(path.join(repoDir, '.git/hooks/post-checkout'), '#!/bin/sh\nid\n');
    writeFileSync(path.join(repoDir, '.git/config'), '[core]\n\tfsmonitor = x\n');
    chmodSync(path.join(repoDir, '.git/hooks/pre-commit.sample'), 0o700);
    unlinkSync(path.join(hostHome, '.profile'));
    symlinkSync('/tmp/evil', path.join(hostHome, '.profile'));
    unlinkSync(path.join(hostHome, '.ssh/known_hosts'));
    unlinkSync(path.join(hostHome, '.bashrc'));
    symlinkSync('/tmp/rc', path.join(hostHome, '.bashrc'));
    // Caches and git's data change in every honest run: not recorded.
    writeFileSync(path.join(hostHome, '.cache/pip/b'), 'b\n');
    writeFileSync(path.join(repoDir, '.git/HEAD'), 'ref: refs/heads/other\n');
    const changes = compareProtected(before, snapshotProtected(roots));
    expect(changes.map((c) => [c.path, c.change])).toEqual([
      ['/home/agent/.bashrc', 'type'],
      ['/home/agent/.profile', 'link'],
      ['/home/agent/.ssh/known_hosts', 'removed'],
      [path.join(repoDir, '.git/config'), 'content'],
      [path.join(repoDir, '.git/hooks/post-checkout'), 'created'],
      [path.join(repoDir, '.git/hooks/pre-commit.sample'), 'mode'],
    ]);
    expect(changes.find((c) => c.change === 'link')?.detail).toBe(
      'link to /etc/hostname → link to /tmp/evil',
    );
    expect(changes.find((c) => c.change === 'mode')?.detail).toBe('mode 0644 → 0700');
  });

  it('a hooks folder replaced by a link is a change at .git/hooks itself', () => {
    const { repoDir, roots } = layout('hooks-link');
    const before = snapshotProtected(roots);
    rmSync(path.join(repoDir, '.git/hooks'), { recursive: true });
    symlinkSync('../tools', path.join(repoDir, '.git/hooks'));
    const changes = compareProtected(before, snapshotProtected(roots));
    expect(changes.map((c) => [c.path, c.change])).toEqual([
      [path.join(repoDir, '.git/hooks'), 'created'],
      [path.join(repoDir, '.git/hooks/pre-commit.sample'), 'removed'],
    ]);
  });

  it('evidence keeps the identities of the files recorded before, to match their inode', () => {
    const { hostHome, roots } = layout('identity');
    const before = snapshotProtected(roots);
    const evidence = protectedEvidence(before, snapshotProtected(roots));
    expect(evidence.changes).toEqual([]);
    const rc = evidence.files.find((f) => f.path === '/home/agent/.bashrc');
    const st = statSync(path.join(hostHome, '.bashrc'));
    expect(rc).toEqual({ path: '/home/agent/.bashrc', dev: st.dev, ino: st.ino });
  });

  it('a file past the hash bound rewritten to the same size with its mtime put back is still a change', () => {
    const { hostHome, roots } = layout('large');
    const big = path.join(hostHome, '.bashrc');
    writeFileSync(big, Buffer.alloc(5 * 1024 * 1024, 0x23));
    const stamp = 1_700_000_000; // whole seconds: utimes puts them back exactly
    utimesSync(big, stamp, stamp);
    const before = snapshotProtected(roots);
    const body = Buffer.alloc(5 * 1024 * 1024, 0x23);
    body.write('curl x | sh\n');
    writeFileSync(big, body);
    utimesSync(big, stamp, stamp);
    expect(statSync(big).mtimeMs).toBe(stamp * 1000);
    expect(compareProtected(before, snapshotProtected(roots)).map((c) => [c.path, c.change])).toEqual([
      ['/home/agent/.bashrc', 'content'],
    ]);
    // Untouched, the same file is no change.
    const again = snapshotProtected(roots);
    expect(compareProtected(again, snapshotProtected(roots))).toEqual([]);
  });

  it("the watch writes the agent's changes, then the changes made while the traced tests ran", () => {
    const { repoDir, hostHome } = layout('watch');
    const written: ProtectedStateEvidence[] = [];
    const watch = new ProtectedStateWatch({ repoDir, hostHome, agentHome: '/home/agent' }, 'f', (_f, v) =>
      written.push(v),
    );
    writeFileSync(path.join(hostHome, '.bashrc'), '# agent\n');
    watch.afterAgent();
    watch.afterAgent();
    // Between the agent and the traced tests: the untraced run of the baseline's tests (setup).
    writeFileSync(path.join(hostHome, '.profile'), '# setup\n');
    watch.beforeTests();
    writeFileSync(path.join(hostHome, '.zshenv'), 'id\n');
    // The workspace may be the grading copy while the tests run: its .git is not the agent's.
    writeFileSync(path.join(repoDir, '.git/hooks/pre-push'), '#!/bin/sh\n');
    watch.beforeTests();
    watch.afterTests();
    expect(written).toHaveLength(2);
    expect(written[0]?.changes.map((c) => c.path)).toEqual(['/home/agent/.bashrc']);
    expect(written[0]?.test_changes).toBeUndefined();
    expect(written[1]?.changes.map((c) => c.path)).toEqual(['/home/agent/.bashrc']);
    expect(written[1]?.test_changes?.map((c) => [c.path, c.change])).toEqual([
      ['/home/agent/.zshenv', 'created'],
    ]);
  });
});
