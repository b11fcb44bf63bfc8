import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

/*
 * What a signed pack's config brings besides its sandbox: a container image the operator did not
 * allow, a built-in agent profile whose env_pass hands the agent the operator's API key, and rule
 * files (or a template repo) outside the pack, by path or by a link inside it. `pack verify` lists
 * and refuses each unless the operator's host policy allows it, and a run of the unpacked pack
 * keeps the same floor.
 */

const isRoot = process.getuid?.() === 0;
const work = tempDir('ag-pack-reach-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const cli = (args: string[], env?: Record<string, string>) =>
  execCli(args, { cwd: work, ...(env ? { env } : {}) });

const pack = path.join(work, 'reach.zip');
const trust = path.join(work, 'trust.yaml');

beforeAll(async () => {
  const reg = path.join(work, 'reg');
  cpSync(BENCHMARKS, reg, { recursive: true });
  appendFileSync(
    path.join(reg, 'py-inventory/config.yaml'),
    'container: {image: "docker.io/evil/miner:latest"}\nagent_profile: codex\n',
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
    'reachpack',
    '--pack-version',
    '1.0.0',
  ]);
  expect(built.code, built.stderr).toBe(0);
  expect((await cli(['keys', 'generate', '--out', path.join(work, 'keys'), '--name', 'alice'])).code).toBe(0);
  const signed = await cli(['pack', 'sign', pack, '--key', path.join(work, 'keys/alice.key')]);
  expect(signed.code, signed.stderr).toBe(0);
  writeFileSync(trust, 'schema: 1\nkeys:\n  - public_key: keys/alice.pub\n');
}, 180_000);

const hostPolicy = (name: string, lines: string[]) => {
  const file = path.join(work, name);
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o644 });
  return file;
};

describe('what a signed pack brings', () => {
  it("verify refuses an image the operator did not allow and a built-in profile's key from the host, naming each", async () => {
    const quiet = await cli(['pack', 'verify', pack, '--trust', trust]);
    expect(quiet.code).toBe(2);
    expect(quiet.stderr).toMatch(
      /field 'container\.image': .*pull and run docker\.io\/evil\/miner:latest, an image the operator did not allow/,
    );
    expect(quiet.stderr).toContain('container_images');
    // Without the key in the operator's environment the profile passes nothing.
    expect(quiet.stderr).not.toContain('OPENAI_API_KEY');

    const keyed = await cli(['pack', 'verify', pack, '--trust', trust], { OPENAI_API_KEY: 'sk-operator' });
    expect(keyed.code).toBe(2);
    expect(keyed.stderr).toMatch(
      /field 'agent_profile \(codex\) env_pass\[0\]': .*gives the agent OPENAI_API_KEY/,
    );
    expect(keyed.stderr).not.toContain('sk-operator');

    if (!isRoot) return; // the host policy must be root's
    const allowing = hostPolicy('allow.yaml', [
      'container_images: ["docker.io/evil/*"]',
      'agent_env: [OPENAI_API_KEY]',
    ]);
    const allowed = await cli(['pack', 'verify', pack, '--trust', trust], {
      OPENAI_API_KEY: 'sk-operator',
      AGENTGUARD_HOST_POLICY: allowing,
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    // Another image of the same name elsewhere is not the one allowed.
    const other = hostPolicy('other.yaml', ['container_images: ["docker.io/evil/minerx"]']);
    const refused = await cli(['pack', 'verify', pack, '--trust', trust], { AGENTGUARD_HOST_POLICY: other });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("field 'container.image'");
  }, 120_000);

  it.skipIf(!isRoot)(
    'a run of the unpacked pack refuses rule files and a repo outside it, by path or by a link inside it',
    async () => {
      const allowing = hostPolicy('allow-run.yaml', ['container_images: ["docker.io/evil/*"]']);
      const into = path.join(work, 'imported');
      const imported = await cli(['pack', 'import', pack, '--into', into, '--trust', trust], {
        AGENTGUARD_HOST_POLICY: allowing,
      });
      expect(imported.code, imported.stderr).toBe(0);
      const configDir = path.join(into, 'configs/py-inventory');
      const config = path.join(configDir, 'config.yaml');
      // The agent: a command instead of the profile (whose agent is not installed here).
      const original = readFileSync(config, 'utf8').replace(
        /^agent_profile: codex$/m,
        "agent_command: [sh, -c, 'true']",
      );
      writeFileSync(config, original);
      const outside = path.join(work, 'outside');
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'rules.yaml'), 'rules: []\n');
      const runRefused = async (field: string) => {
        const r = await cli(['run', config, '--dry-run'], { AGENTGUARD_HOST_POLICY: allowing });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(
          new RegExp(`field '${field.replace(/[[\].]/g, '\\$&')}': .*has agentguard read`),
        );
        expect(r.stderr).toContain('host_paths');
        return r;
      };
      // The imported config as it came runs (the image allowed by the operator).
      const ok = await cli(['run', config, '--dry-run'], { AGENTGUARD_HOST_POLICY: allowing });
      expect(ok.code, ok.stderr).toBe(0);

      writeFileSync(config, `${original}security: {rules: [${path.join(outside, 'rules.yaml')}]}\n`);
      await runRefused('security.rules[0]');
      symlinkSync(path.join(outside, 'rules.yaml'), path.join(configDir, 'extra-rules.yaml'));
      writeFileSync(config, `${original}security: {rules: [extra-rules.yaml]}\n`);
      await runRefused('security.rules[0]');
      symlinkSync(outside, path.join(configDir, 'linked-repo'));
      writeFileSync(config, original.replace(/^repo: .*$/m, 'repo: linked-repo'));
      await runRefused('repo');
      // The operator lists the folder: the same config runs.
      const listing = hostPolicy('list.yaml', [
        'container_images: ["docker.io/evil/*"]',
        `host_paths: [${outside}]`,
      ]);
      const listed = await cli(['run', config, '--dry-run'], { AGENTGUARD_HOST_POLICY: listing });
      expect(listed.code, listed.stderr).toBe(0);
    },
    120_000,
  );
});
