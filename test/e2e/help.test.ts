import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../../src/cli/help-groups.js';
import { execCli, tempDir } from './exec-cli.js';

const work = tempDir('ag-help-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('agentguard --help', () => {
  it('groups every command by what it is for, within 100 columns', async () => {
    const r = await execCli(['--help'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const titles = [...r.stdout.matchAll(/^([A-Z][A-Za-z ]+):$/gm)].map((m) => m[1]);
    expect(titles).toEqual(['Usage', ...COMMAND_GROUPS.map((g) => g.title), 'Options']);
    // Every command the CLI has is in a group: nothing falls through to "Other".
    expect(r.stdout).not.toMatch(/^Other:$/m);
    for (const name of COMMAND_GROUPS.flatMap((g) => g.commands))
      expect(r.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(r.stdout).toContain('Each command has its own help: agentguard <command> --help');
  });
});
