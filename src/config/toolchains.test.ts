import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkToolchains } from './toolchains.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentguard-toolchains-'));
const home = path.join(root, 'home');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pyenv = path.join(home, '.pyenv/versions/3.12.4');
mkdirSync(pyenv, { recursive: true });

function problems(list: string[]) {
  const found: string[] = [];
  checkToolchains(list, home, (field, message) => found.push(`${field}: ${message}`));
  return found;
}

describe('toolchains', () => {
  it('shows a toolchain folder under HOME, not HOME or what holds it, a system folder or a relative path', () => {
    expect(problems([pyenv])).toEqual([]);
    expect(problems([home, path.dirname(home), '/usr', 'venv', path.join(home, 'missing')])).toEqual([
      `toolchains[0]: ${home} holds your HOME (${home}), whose credentials the sandbox hides`,
      `toolchains[1]: ${path.dirname(home)} holds your HOME (${home}), whose credentials the sandbox hides`,
      'toolchains[2]: /usr is the system folder /usr, which the sandbox already shows or must not show whole',
      "toolchains[3]: 'venv' is not an absolute path",
      `toolchains[4]: folder ${path.join(home, 'missing')} does not exist`,
    ]);
  });
});
