import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTrajectory } from '../agents/model-server/trajectory.js';
import { loadProfileResult } from '../agents/profiles/load-profile.js';
import { parseRuleFile } from '../analysis/rules/rule-file.js';
import { loadConfig } from './load.js';
import { parseYaml, readYamlFile, YAML_LIMITS } from './yaml.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-yaml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Nine to the fifth leaves from a few hundred bytes. */
const BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
  'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
].join('\n');

describe('parseYaml', () => {
  it('parses ordinary YAML, with a few aliases', () => {
    expect(parseYaml('a: &x [1]\nb: *x\n')).toEqual({ ok: true, value: { a: [1], b: [1] } });
  });

  it('refuses an alias bomb, and text over the size cap', () => {
    const bomb = parseYaml(BOMB);
    expect(bomb.ok).toBe(false);
    if (!bomb.ok) expect(bomb.problem.message).toContain(`more than ${YAML_LIMITS.aliases} times`);
    const big = parseYaml(`a: "${'x'.repeat(YAML_LIMITS.bytes)}"`);
    expect(big.ok).toBe(false);
  });

  it('reads only regular files', () => {
    const link = path.join(dir, 'zero.yaml');
    symlinkSync('/dev/zero', link);
    const r = readYamlFile(link);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatchObject({ read: 'not-a-file' });
  });
});

describe('every YAML loader names the file of an alias bomb', () => {
  const bombFile = path.join(dir, 'bomb.yaml');
  writeFileSync(bombFile, BOMB);

  it('config', () => {
    const r = loadConfig(bombFile);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues[0]).toMatchObject({ file: bombFile, message: expect.stringContaining('aliases') });
  });

  it('agent profile', () => {
    const r = loadProfileResult(bombFile);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues[0]).toMatchObject({ file: bombFile, message: expect.stringContaining('aliases') });
  });

  it('trajectory', () => {
    expect(() => loadTrajectory(bombFile)).toThrow(new RegExp(`^${bombFile}: expands YAML aliases`));
  });

  it('rule file', () => {
    expect(() => parseRuleFile(bombFile, BOMB)).toThrow(new RegExp(`^${bombFile}: expands YAML aliases`));
  });
});
