import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyTemplate } from './copy-template.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-venv-link-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const python = ['/usr/bin/python3', '/usr/local/bin/python3'].find(existsSync);

/** A template holding one venv-shaped folder whose bin/<name> links to `target`. */
function template(name: string, link: string, target: string, cfg = true): string {
  const dir = mkdtempSync(path.join(root, 'template-'));
  mkdirSync(path.join(dir, '.venv/bin'), { recursive: true });
  if (cfg) writeFileSync(path.join(dir, '.venv/pyvenv.cfg'), 'home = /usr/bin\n');
  symlinkSync(target, path.join(dir, '.venv/bin', link));
  writeFileSync(path.join(dir, `${name}.py`), '');
  return dir;
}
const copy = (dir: string) => copyTemplate(dir, mkdtempSync(path.join(root, 'ws-')), 'config.yaml');

describe.skipIf(!python)("a template's venv", () => {
  it('keeps its link to the interpreter program it was made from', () => {
    const dir = template('a', 'python3', python as string);
    const dest = mkdtempSync(path.join(root, 'ws-'));
    copyTemplate(dir, dest, 'config.yaml');
    expect(readlinkSync(path.join(dest, '.venv/bin/python3'))).toBe(python);
  });

  it('refuses any other link out: to a file to read, a program not named python, outside a venv', () => {
    expect(() => copy(template('b', 'python', '/etc/passwd'))).toThrow(/points outside the template/);
    expect(() => copy(template('c', 'python3', '/root/.ssh/id_rsa'))).toThrow(/points outside/);
    expect(() => copy(template('d', 'cat', realpathSync('/bin/cat')))).toThrow(/points outside/);
    expect(() => copy(template('e', 'python3', python as string, false))).toThrow(/points outside/);
  });
});
