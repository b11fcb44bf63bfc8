import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProfileResult } from '../agents/profiles/load-profile.js';
import { loadConfig } from '../config/load.js';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { enforceFloor, enforceJudgement, type IsolationFacts } from './isolation-floor.js';
import { judgementChanges } from './judgement-fields.js';

/*
 * The judgement half of the floor, on configs read by the real loader from a copy of a shipped
 * benchmark with lines appended: each lenient field is named, a stricter one is not, and the YAML
 * spellings that could hide a field (an alias, a merge key, a key given twice, a look-alike key,
 * `extends`, a number or boolean as a string) are either expanded before the judgement or refused by
 * the loader itself.
 */

const work = mkdtempSync(path.join(os.tmpdir(), 'ag-judgement-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
cpSync(path.join(packageRoot(), 'benchmarks/js-slugify'), path.join(work, 'task'), { recursive: true });
const base = path.join(work, 'task/config.yaml');
const shipped = readFileSync(base, 'utf8');
let n = 0;

/** The shipped config with `extra` appended, as the loader reads it (or its issues). */
function load(extra: string): { cfg?: ResolvedConfig; issues?: string } {
  const file = path.join(work, 'task', `c${n++}.yaml`);
  writeFileSync(file, `${shipped}\n${extra}\n`);
  const r = loadConfig(file);
  return r.ok ? { cfg: r.value } : { issues: r.issues.map((i) => `${i.field}: ${i.message}`).join('\n') };
}
const fields = (extra: string) => {
  const r = load(extra);
  if (!r.cfg) throw new Error(`refused: ${r.issues}`);
  return judgementChanges(r.cfg).map((c) => c.field);
};

describe('judgement fields', () => {
  it('a shipped benchmark judges as strictly as the defaults', () => {
    expect(fields('')).toEqual([]);
  });

  it('names each field set more leniently than the defaults', () => {
    expect(
      fields(
        [
          'security:',
          '  default_rules: false',
          '  disable: [secrets-canary-read]',
          '  allow: {net-exfil: [{host: evil.test}]}',
          '  severity: {secrets-canary-read: warning, net-exfil: critical}',
          '  state_dirs: [~/.ssh]',
          'severity: {tests-pass: info, scope: warning}',
          'grading: in-place',
          'unsafe_commands: ["\\\\bsudo\\\\b"]',
          'secret_paths: ["**/.env"]',
          'secret_scan_max_bytes: 1024',
          'min_skill_coverage: 0',
        ].join('\n'),
      ),
    ).toEqual([
      'security.default_rules',
      'security.disable[0]',
      'security.allow.net-exfil[0]',
      'security.severity.secrets-canary-read',
      'security.state_dirs[0]',
      'severity.tests-pass',
      'severity.scope',
      'grading',
      'unsafe_commands',
      'secret_paths',
      'secret_scan_max_bytes',
      'min_skill_coverage',
    ]);
  });

  it('lets an input judge more strictly: raised severities, more rules and patterns, enforce, a larger scan', () => {
    expect(
      fields(
        [
          'security: {severity: {net-exfil: critical}}',
          'severity: {diff-size: error}',
          'command_policy: enforce',
          'secret_scan_max_bytes: 16777216',
          'min_skill_coverage: 0.9',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('judges what an alias expands to', () => {
    expect(fields('security: {disable: &off [secrets-canary-read]}\nsecret_paths: *off')).toEqual([
      'security.disable[0]',
      'secret_paths',
    ]);
  });

  it.each([
    ['a YAML 1.1 merge key', 'x: &lenient {default_rules: false}\nsecurity: {<<: *lenient}', /x|<</],
    [
      'a key given twice',
      'security: {default_rules: true}\nsecurity: {default_rules: false}',
      /security|unique|twice/i,
    ],
    ['a look-alike key (Cyrillic s)', '\u0455ecurity: {default_rules: false}', /\u0455ecurity/],
    ['a zero-width key', 'gra\u200bding: in-place', /gra\u200bding/],
    ['extends', 'extends: ../lenient.yaml', /extends/],
    ['a boolean as a string', 'security: {default_rules: "false"}', /default_rules/],
    ['a YAML 1.1 boolean', 'security: {default_rules: off}', /default_rules/],
    ['a number as a string', 'secret_scan_max_bytes: "1"', /secret_scan_max_bytes/],
  ])('%s is refused by the loader, naming it', (_what, extra, named) => {
    const r = load(extra);
    expect(r.cfg, 'loaded when it should be refused').toBeUndefined();
    expect(r.issues).toMatch(named);
  });

  it("names a profile file that sets the variables the harness judges by, or takes a built-in agent's name", () => {
    const profile = path.join(work, 'task', 'agent.yaml');
    writeFileSync(
      profile,
      [
        'schema_version: 1',
        'name: codex',
        'bin: /bin/true',
        'command: ["{task_prompt}"]',
        'env_set: {LD_PRELOAD: /tmp/x.so, NODE_OPTIONS: "-r /tmp/x.js", CODEX_HOME: "{home_dir}"}',
      ].join('\n'),
    );
    expect(fields('agent_profile: ./agent.yaml')).toEqual([
      `agent_profile (${profile}) env_set.LD_PRELOAD`,
      `agent_profile (${profile}) env_set.NODE_OPTIONS`,
      `agent_profile (${profile}) name`,
    ]);
    // HOME and PATH are the harness's: the profile loader itself refuses a profile that sets them.
    writeFileSync(
      profile,
      readFileSync(profile, 'utf8').replace('{LD_PRELOAD', '{HOME: /tmp/e, PATH: /tmp/b, LD_PRELOAD'),
    );
    const withHome = loadProfileResult(profile);
    expect(withHome.ok).toBe(false);
    expect(JSON.stringify(withHome)).toMatch(/env_set.HOME.*set by the harness itself/);
    // A built-in profile named by name is the operator's agentguard's own: nothing to judge.
    expect(fields('agent_profile: codex')).toEqual([]);
  });

  it("refuses them with one issue each naming the input, the field and the operator's flag, only where the floor judges judgement", () => {
    const cfg = load('grading: in-place\nsecurity: {default_rules: false}').cfg as ResolvedConfig;
    const floor = { input: "pack 'p@1' (imported)", allowFlag: '--allow-below-floor', judgement: true };
    let err: unknown;
    try {
      enforceJudgement(floor, cfg);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const text = String((err as Error).message);
    expect(text).toContain("field 'security.default_rules'");
    expect(text).toContain("field 'grading'");
    expect(text).toContain(
      "pack 'p@1' (imported) would judge its runs more leniently than agentguard's defaults",
    );
    expect(text).toContain('--allow-below-floor');
    // A queue worker's floor judges isolation only: the coordinator's bundle is the judgement's side.
    expect(() => enforceJudgement({ ...floor, judgement: false }, cfg)).not.toThrow();
    const facts: IsolationFacts = {
      file: cfg.config_path,
      sandbox: { kind: 'bwrap', onHost: false },
      tracer: 'ebpf',
      network: 'none',
      setupCommand: false,
      judgement: judgementChanges(cfg),
    };
    expect(() => enforceFloor({ ...floor, judgement: false }, facts)).not.toThrow();
    expect(() => enforceFloor(floor, facts)).toThrow(/field 'grading'/);
  });
});
