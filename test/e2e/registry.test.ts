import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BENCHMARKS, execCli, ownStderr, tempDir } from './exec-cli.js';
import { shippedRegistryCounts } from './shipped-registry.js';

const work = tempDir('ag-registry-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('agentguard registry', () => {
  it('validates the shipped registry', async () => {
    const r = await execCli(['registry', 'validate'], { cwd: work });
    expect(ownStderr(r.stderr)).toBe('');
    const n = shippedRegistryCounts();
    expect(r.stdout).toContain(
      `${n.families} families, ${n.configs} configs, ${n.contracts} contracts: valid`,
    );
    expect(r.code).toBe(0);
  });

  it('lists families by tag as JSON', async () => {
    const r = await execCli(['registry', 'list', '--tag', 'network', '--json'], { cwd: work });
    expect(r.code).toBe(0);
    const ids = (JSON.parse(r.stdout) as { id: string }[]).map((f) => f.id);
    expect(ids).toContain('attack-beacon');
    expect(ids).not.toContain('js-slugify');
  });

  it('writes a suite file whose configs resolve from where it is written', async () => {
    const out = path.join(work, 'bugfix.yaml');
    const r = await execCli(['registry', 'suite', '--category', 'bug-fix', '-o', out], { cwd: work });
    expect(r.code).toBe(0);
    const configs = (parse(readFileSync(out, 'utf8')) as { configs: string[] }).configs;
    expect(configs.map((c) => path.resolve(work, c))).toEqual(
      ['js-slugify', 'py-inventory', 'sh-logrotate'].flatMap((t) => [
        path.join(BENCHMARKS, t, 'config.yaml'),
        path.join(BENCHMARKS, 'agents/demos', t, 'config.yaml'),
      ]),
    );
  });

  it('refuses an unknown action, an unknown family and a missing registry with exit 2', async () => {
    const unknown = await execCli(['registry', 'lsit'], { cwd: work });
    expect(unknown.stderr).toMatch(/'registry lsit' is not a command\. Did you mean 'registry list'\?/);
    expect(unknown.code).toBe(2);
    // A mistyped command gets the same help, with exit 2.
    const typo = await execCli(['registyr', 'list'], { cwd: work });
    expect(typo.stderr).toContain(
      "'registyr' is not a command. Did you mean 'registry'? Fix: see 'agentguard --help'.",
    );
    expect(typo.code).toBe(2);
    const family = await execCli(['registry', 'list', '--family', 'nope'], { cwd: work });
    expect(family.stderr).toMatch(/has no family 'nope'/);
    expect(family.code).toBe(2);
    const missing = await execCli(['registry', 'validate', '--registry', 'none.yaml'], { cwd: work });
    expect(missing.stderr).toMatch(/none\.yaml: the registry file does not exist/);
    expect(missing.code).toBe(2);
  });
});
