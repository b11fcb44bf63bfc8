import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveInside } from './job-config.js';

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ag-job-config-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = path.join(base, 'bundle');
mkdirSync(path.join(root, 't', 'repo'), { recursive: true });
mkdirSync(path.join(base, 'outside'));
symlinkSync('repo', path.join(root, 't', 'r'));
symlinkSync('../..', path.join(root, 't', 'up'));
symlinkSync('t/up', path.join(root, 'chain'));
symlinkSync(path.join(base, 'outside'), path.join(root, 't', 'abs'));
symlinkSync('loop', path.join(root, 'loop'));
const t = path.join(root, 't');

describe('a path of a queued config judged inside its bundle', () => {
  it('inside, through links that stay inside, and missing parts judged as written', () => {
    expect(resolveInside(root, t, 'repo')).toBe(path.join(t, 'repo'));
    expect(resolveInside(root, t, 'r/x/y')).toBe(path.join(t, 'repo', 'x', 'y'));
    expect(resolveInside(root, t, 'missing/../repo')).toBe(path.join(t, 'repo'));
  });

  it('out of it as written, through a link, a chain of links, an absolute link, or a loop', () => {
    expect(resolveInside(root, t, '../../outside')).toBeNull();
    expect(resolveInside(root, t, '/etc')).toBeNull();
    expect(resolveInside(root, t, 'up/outside')).toBeNull();
    expect(resolveInside(root, root, 'chain/outside')).toBeNull();
    expect(resolveInside(root, t, 'abs')).toBeNull();
    expect(resolveInside(root, root, 'loop')).toBeNull();
  });
});
