import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, ROOT, tempDir } from './exec-cli.js';

/*
 * A signed pack whose config asks to run on the host (`sandbox: local`) with a setup_command: the
 * signature says who wrote it, not that it is safe to run. `pack verify` and `import` list each
 * config's isolation and setup and refuse it below the floor unless the operator allows it; a run
 * of an imported config keeps the floor too, however the config is named; and an HMAC "secret"
 * that is a public key is refused.
 */

const isRoot = process.getuid?.() === 0;
const work = tempDir('ag-pack-floor-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const cli = (args: string[]) => execCli(args, { cwd: work });

const reg = path.join(work, 'reg');
const pack = path.join(work, 'floor.zip');
const policy = path.join(work, 'trust.yaml');
/** What the pack's setup_command creates: it exists only if the command ran. */
const ranMarker = path.join(work, 'setup-ran-on-host');

beforeAll(async () => {
  // The shipped registry, with py-inventory's config asking to run on the host.
  cpSync(BENCHMARKS, reg, { recursive: true });
  appendFileSync(
    path.join(reg, 'py-inventory/config.yaml'),
    `sandbox: local\nsetup_command: [sh, -c, "touch ${ranMarker}"]\nagent_command: [sh, -c, "true"]\n` +
      // A lenient judgement beside it, one field through an alias: the pack would pass its own runs.
      'security: {disable: &off [secrets-canary-read]}\nsecret_paths: *off\n' +
      'severity: {tests-pass: warning}\ngrading: in-place\n',
  );
  const built = await cli([
    'pack',
    'build',
    '--registry',
    path.join(reg, 'registry.yaml'),
    '--family',
    'py-inventory',
    '-o',
    pack,
    '--name',
    'floorpack',
    '--pack-version',
    '1.0.0',
  ]);
  expect(built.code, built.stderr).toBe(0);
  expect((await cli(['keys', 'generate', '--out', path.join(work, 'keys'), '--name', 'alice'])).code).toBe(0);
  const signed = await cli(['pack', 'sign', pack, '--key', path.join(work, 'keys/alice.key')]);
  expect(signed.code, signed.stderr).toBe(0);
  writeFileSync(policy, 'schema: 1\nkeys:\n  - public_key: keys/alice.pub\n');
}, 180_000);

describe('a signed pack whose config runs on the host', () => {
  it('verify lists its isolation and setup, and refuses it unless --allow-below-floor', async () => {
    const v = await cli(['pack', 'verify', pack, '--trust', policy]);
    expect(v.code).toBe(2);
    expect(v.stdout).toContain(
      `configs/py-inventory/config.yaml: sandbox local, tracer auto, network none; setup: sh -c touch ${ranMarker}`,
    );
    expect(v.stderr).toMatch(/entry 'configs\/py-inventory\/config\.yaml': field 'sandbox'/);
    expect(v.stderr).toMatch(/field 'setup_command': .*setup_command would run on the host/);
    expect(v.stderr).toContain('--allow-below-floor');
    expect(v.stderr).toContain('refused (isolation)');
    // Its judgement is listed and refused as its isolation is, field by field.
    expect(v.stdout).toContain(
      '[judges more leniently: security.disable[0], severity.tests-pass, grading, secret_paths]',
    );
    for (const field of ['security.disable[0]', 'secret_paths', 'severity.tests-pass', 'grading'])
      expect(v.stderr).toContain(
        `field '${field}': a config of the pack (floorpack@1.0.0) would judge its runs more leniently than agentguard's defaults`,
      );
    const json = await cli(['pack', 'verify', pack, '--trust', policy, '--json']);
    const listed = JSON.parse(json.stdout).isolation as { config: string; sandbox: string }[];
    expect(listed.map((i) => [i.config, i.sandbox])).toEqual([
      ['configs/agents/demos/py-inventory/config.yaml', 'auto'],
      ['configs/py-inventory/config.yaml', 'local'],
    ]);

    const allowed = await cli(['pack', 'verify', pack, '--trust', policy, '--allow-below-floor']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('sandbox local');
    expect(allowed.stderr).toContain(
      '1 config below the floor (isolation or judgement), allowed by --allow-below-floor',
    );
  }, 120_000);

  it('import refuses it writing nothing; allowed, it marks what it imported', async () => {
    const into = path.join(work, 'refused');
    const r = await cli(['pack', 'import', pack, '--into', into, '--trust', policy]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing was written');
    expect(existsSync(into)).toBe(false);

    const ok = path.join(work, 'imported');
    const i = await cli(['pack', 'import', pack, '--into', ok, '--trust', policy, '--allow-below-floor']);
    expect(i.code, i.stderr).toBe(0);
    for (const dir of [ok, path.join(ok, 'configs/py-inventory')])
      expect(JSON.parse(readFileSync(path.join(dir, '.agentguard-imported.json'), 'utf8'))).toMatchObject({
        pack: 'floorpack',
        version: '1.0.0',
        archive: pack,
      });
  }, 120_000);

  it.skipIf(!isRoot)(
    'a run of the imported config keeps the floor, by its path or a link to it, and runs nothing',
    async () => {
      const config = path.join(work, 'imported/configs/py-inventory/config.yaml');
      expect(existsSync(config)).toBe(true);
      // The import reached through a link from elsewhere: the mark beside the config goes with it.
      const alias = path.join(work, 'elsewhere/alias');
      mkdirSync(path.dirname(alias), { recursive: true });
      symlinkSync(path.join(work, 'imported'), alias);
      const aliased = path.join(alias, 'configs/py-inventory/config.yaml');
      const refused = async (named: string, by: string) => {
        for (const extra of [[], ['--dry-run']]) {
          const r = await cli(['run', named, '--json', ...extra]);
          expect(r.code, r.stderr).toBe(2);
          expect(r.stderr).toContain(by);
          expect(r.stderr).toContain("field 'sandbox'");
          expect(r.stderr).toContain("field 'grading'");
          expect(r.stderr).toContain("would judge its runs more leniently than agentguard's defaults");
          expect(r.stderr).toContain('--allow-below-floor');
        }
      };
      await refused(config, "pack 'floorpack@1.0.0'");
      await refused(aliased, "pack 'floorpack@1.0.0'");
      // Without the mark beside it, the one at the import's root; without either, the pack's manifest.
      rmSync(path.join(path.dirname(config), '.agentguard-imported.json'));
      await refused(config, "pack 'floorpack@1.0.0'");
      rmSync(path.join(work, 'imported/.agentguard-imported.json'));
      await refused(config, 'the pack unpacked in');
      // The operator's own --sandbox local over an imported config is below the floor too.
      const own = await cli(['run', config, '--sandbox', 'local', '--dry-run']);
      expect(own.code).toBe(2);
      expect(existsSync(ranMarker)).toBe(false);
      expect(readdirSync(work)).not.toContain('.agentguard');

      // A batch plans each attempt the same way: the attempt is an ERROR naming the floor.
      const suite = path.join(work, 'suite.yaml');
      writeFileSync(suite, `configs: [${config}]\n`);
      type Summary = { rows: { result: string; reason?: string }[] };
      const batch = await cli(['suite', suite, '--workers', '1', '--json']);
      const row = (JSON.parse(batch.stdout) as Summary).rows[0];
      expect(row?.result).toBe('ERROR');
      expect(row?.reason).toContain('--allow-below-floor');
      expect(existsSync(ranMarker)).toBe(false);
      const batchAllowed = await cli(['suite', suite, '--workers', '1', '--json', '--allow-below-floor']);
      expect((JSON.parse(batchAllowed.stdout) as Summary).rows[0]?.result).not.toBe('ERROR');
      expect(existsSync(ranMarker)).toBe(true);
      rmSync(ranMarker);

      const allowed = await cli(['run', config, '--json', '--allow-below-floor']);
      expect(allowed.code, allowed.stderr).not.toBe(2);
      expect(existsSync(ranMarker)).toBe(true);
    },
    300_000,
  );

  it("verify refuses a config that reaches the host beyond its folder: a host folder, an internal mirror or host, the host's variables", async () => {
    const cfg = path.join(reg, 'js-slugify/config.yaml');
    const tools = path.join(work, 'host-tools');
    mkdirSync(tools);
    writeFileSync(
      path.join(reg, 'js-slugify/repo/package-lock.json'),
      '{"lockfileVersion":3,"packages":{}}\n',
    );
    appendFileSync(
      cfg,
      [
        `toolchains: [${tools}]`,
        'agent_environment: [AWS_SECRET_ACCESS_KEY]',
        'network: {mode: allowlist, allow: ["localhost:6379", "[::ffff:169.254.169.254]"], hosts: {api.test: "10.0.0.1:80"}}',
        'setup: {dependencies: [{manager: npm, mirror: "http://169.254.169.254/latest/"}]}',
        '',
      ].join('\n'),
    );
    const reach = path.join(work, 'reach.zip');
    const built = await cli([
      'pack',
      'build',
      '--registry',
      path.join(reg, 'registry.yaml'),
      '--family',
      'js-slugify',
      '-o',
      reach,
      '--name',
      'reachpack',
      '--pack-version',
      '1.0.0',
    ]);
    expect(built.code, built.stderr).toBe(0);
    const v = await cli(['pack', 'verify', reach]);
    expect(v.code).toBe(2);
    for (const field of [
      'toolchains[0]',
      'agent_environment[0]',
      'network.allow[0]',
      'network.allow[1]',
      'network.hosts.api.test',
      'setup.dependencies[0].mirror',
    ])
      expect(v.stderr).toMatch(
        new RegExp(`entry 'configs/js-slugify/config\\.yaml': field '${field.replace(/[[\].]/g, '\\$&')}'`),
      );
    expect(v.stderr).toContain('under agent_env in /etc/agentguard/host-policy.yaml');
    // The operator's host policy allows each, one line apiece; nothing in the pack can.
    const hostPolicy = path.join(work, 'host-policy.yaml');
    writeFileSync(
      hostPolicy,
      [
        `host_paths: [${tools}]`,
        'agent_env: [AWS_SECRET_ACCESS_KEY]',
        'network_hosts: ["localhost:6379", "::ffff:169.254.169.254", "10.0.0.1"]',
        'mirrors: ["http://169.254.169.254/latest/"]',
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    const allowed = await execCli(['pack', 'verify', reach], {
      cwd: work,
      env: { AGENTGUARD_HOST_POLICY: hostPolicy },
    });
    expect(allowed.code, allowed.stderr).toBe(0);
  }, 120_000);

  it('a pack that holds an entry named like the import mark is refused', async () => {
    const crafted = path.join(work, 'marked.zip');
    const r = spawnSync(
      'python3',
      ['-W', 'ignore', path.join(ROOT, 'test/fixtures/craft-pack.py'), pack, crafted, 'mark'],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const v = await cli(['pack', 'verify', crafted, '--allow-below-floor']);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/entry 'configs\/\.Agentguard-Imported\.json': has the name of the mark/);
  }, 60_000);
});

describe('an HMAC key that is a public key', () => {
  it('is refused in a trust policy and for signing, naming the file', async () => {
    const bad = path.join(work, 'bad-trust.yaml');
    writeFileSync(bad, 'schema: 1\nkeys:\n  - id: shared\n    hmac_key: keys/alice.pub\n');
    const v = await cli(['pack', 'verify', pack, '--trust', bad, '--allow-below-floor']);
    expect(v.code).toBe(2);
    expect(v.stderr).toContain("bad-trust.yaml: field 'keys[0]'");
    expect(v.stderr).toContain('alice.pub: is a PEM block, not a shared secret');
    const ssh = path.join(work, 'keys/id.pub');
    writeFileSync(ssh, `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${'x'.repeat(40)} me@host\n`);
    const s = await cli(['pack', 'sign', pack, '--hmac', '--key-id', 'shared', '--key', ssh]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('is an OpenSSH public key, not a shared secret');
  }, 60_000);
});
