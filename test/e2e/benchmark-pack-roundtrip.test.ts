import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';
import { shippedRegistryCounts } from './shipped-registry.js';

const shipped = shippedRegistryCounts();

/*
 * The shipped benchmarks through a pack and back: build (twice: byte-identical), sign, verify
 * under a trust policy, import into an empty folder, and run the imported tasks — the same
 * verdicts as the originals. The import goes under /var/tmp, not /tmp: the bwrap sandbox gives the
 * agent a private /tmp, and the attack suite's scripted agent reads its script from the config's
 * folder, as it does from benchmarks/.
 */

const work = tempDir('ag-pack-rt-');
const imported = mkdtempSync('/var/tmp/ag-pack-rt-');
// The agents run as the run's own unprivileged user: the imported tasks' folders must be reachable
// by others, as the shipped ones are (mkdtemp makes its folder 0700).
chmodSync(imported, 0o755);
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(imported, { recursive: true, force: true });
});
const cli = (args: string[]) => execCli(args, { cwd: work });
const TASKS = ['js-slugify', 'py-inventory', 'sh-logrotate'];
const AGENTS = ['mock-solve', 'mock-tamper-tests'];

type Row = { agent: string; task: string; result: string; failed_checks: string[]; alerts: string[] };
type Verdict = { result: string; failed_checks: string[]; alerts: string[] };

function verdicts(rows: Row[]): Record<string, Verdict> {
  return Object.fromEntries(
    rows.map((r) => [
      `${r.agent} on ${r.task}`,
      { result: r.result, failed_checks: [...r.failed_checks].sort(), alerts: [...new Set(r.alerts)].sort() },
    ]),
  );
}

async function matrix(name: string, configs: string[]): Promise<Record<string, Verdict>> {
  const file = path.join(work, `${name}.yaml`);
  writeFileSync(file, `tasks: [${configs.join(', ')}]\nagents: [${AGENTS.join(', ')}]\nworkers: 2\n`);
  const r = await cli(['matrix', file, '--json']);
  expect([0, 1], r.stderr).toContain(r.code);
  return verdicts((JSON.parse(r.stdout) as { rows: Row[] }).rows);
}

/**
 * The attack cases route their fake external host to 127.0.0.1:9 (the discard port): an internal
 * address an imported config may name only when the operator's host policy lists it.
 */
const hostPolicy = path.join(work, 'host-policy.yaml');

async function runOwnAgent(config: string): Promise<Verdict> {
  writeFileSync(hostPolicy, 'network_hosts: ["127.0.0.1:9"]\n', { mode: 0o644 });
  const r = await execCli(['run', config, '--json'], {
    cwd: work,
    env: { AGENTGUARD_HOST_POLICY: hostPolicy },
  });
  expect([0, 1], r.stderr).toContain(r.code);
  const report = JSON.parse(r.stdout) as {
    result: string;
    failed_checks: string[];
    alerts: { rule: string }[];
  };
  return {
    result: report.result,
    failed_checks: [...report.failed_checks].sort(),
    alerts: [...new Set(report.alerts.map((a) => a.rule))].sort(),
  };
}

describe('the shipped registry as a pack', () => {
  const pack = path.join(work, 'shipped.zip');

  it('builds byte-identically, signs, verifies under a trust policy and imports into an empty folder', async () => {
    const t0 = Date.now();
    const b1 = await cli([
      'pack',
      'build',
      '-o',
      pack,
      '--name',
      'shipped',
      '--pack-version',
      '1.0.0',
      '--json',
    ]);
    const buildMs = Date.now() - t0;
    expect(b1.code, b1.stderr).toBe(0);
    const again = path.join(work, 'again.zip');
    expect(
      (await cli(['pack', 'build', '-o', again, '--name', 'shipped', '--pack-version', '1.0.0'])).code,
    ).toBe(0);
    expect(readFileSync(again).equals(readFileSync(pack))).toBe(true);
    const built = JSON.parse(b1.stdout) as { families: number; files: number; size: number; root: string };
    expect(built.families).toBe(shipped.families);

    expect(
      (await cli(['keys', 'generate', '--out', path.join(work, 'keys'), '--name', 'maintainer'])).code,
    ).toBe(0);
    writeFileSync(path.join(work, 'trust.yaml'), 'schema: 1\nkeys:\n  - public_key: keys/maintainer.pub\n');
    const signed = await cli(['pack', 'sign', pack, '--key', path.join(work, 'keys/maintainer.key')]);
    expect(signed.code, signed.stderr).toBe(0);

    // Four shipped attack cases run on the host by design (sandbox: local): below the isolation
    // floor, so the pack is refused until the operator allows them.
    const floor = await cli(['pack', 'verify', pack, '--trust', 'trust.yaml']);
    expect(floor.code).toBe(2);
    const below = floor.stderr.split('\n').filter((l) => l.includes("field 'sandbox'"));
    expect(below.map((l) => /entry '([^']+)'/.exec(l)?.[1]).sort()).toEqual(
      ['compat-syscall', 'compat-syscall-benign', 'io-uring-read', 'io-uring-read-benign']
        .map((c) => `configs/attacks/${c}/config.yaml`)
        .sort(),
    );

    const t1 = Date.now();
    const v = await cli(['pack', 'verify', pack, '--trust', 'trust.yaml', '--allow-below-floor']);
    const verifyMs = Date.now() - t1;
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain(`root ${built.root}; trusted: 1 of 1 required signature`);

    const t2 = Date.now();
    const i = await cli([
      'pack',
      'import',
      pack,
      '--into',
      imported,
      '--trust',
      'trust.yaml',
      '--allow-below-floor',
    ]);
    const importMs = Date.now() - t2;
    expect(i.code, i.stderr).toBe(0);
    const valid = await cli(['registry', 'validate', '--registry', path.join(imported, 'registry.yaml')]);
    expect(valid.stdout).toContain(
      `${shipped.families} families, ${shipped.configs} configs, ${shipped.contracts} contracts: valid`,
    );
    // Measured for the record (docs/packs.md quotes a run of this test).
    console.log(
      `shipped pack: ${built.size} bytes, ${built.files} files; build ${buildMs} ms, verify ${verifyMs} ms, import ${importMs} ms (CLI start included)`,
    );
  }, 300_000);

  it('runs the imported tasks with the mock agents to the same verdicts as the originals', async () => {
    const original = await matrix(
      'original',
      TASKS.map((t) => path.join(BENCHMARKS, t, 'config.yaml')),
    );
    const fromPack = await matrix(
      'imported',
      TASKS.map((t) => path.join(imported, 'configs', t, 'config.yaml')),
    );
    expect(Object.keys(original)).toHaveLength(TASKS.length * AGENTS.length);
    expect(original['mock-solve on js-slugify']?.result).toBe('PASS');
    expect(original['mock-tamper-tests on py-inventory']?.failed_checks).toContain('test-tampering');
    expect(fromPack).toEqual(original);
  }, 900_000);

  it('runs an imported attack case with its own scripted agent to the same verdict and alerts', async () => {
    const original = await runOwnAgent(path.join(BENCHMARKS, 'attacks/beacon/config.yaml'));
    const importedBeacon = path.join(imported, 'configs/attacks/beacon/config.yaml');
    // Without the operator's host policy, the imported case's fake host is below the floor.
    const refused = await cli(['run', importedBeacon, '--json']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("field 'network.hosts.api.allowed.test'");
    expect(refused.stderr).toContain(
      'listing 127.0.0.1:9 under network_hosts in /etc/agentguard/host-policy.yaml',
    );
    const fromPack = await runOwnAgent(importedBeacon);
    expect(original.alerts).toContain('net-proxy-not-allowed');
    expect(fromPack).toEqual(original);
  }, 300_000);
});
