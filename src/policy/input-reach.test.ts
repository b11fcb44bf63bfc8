import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigOrThrow } from '../config/load.js';
import type { HostPolicy } from './host-policy.js';
import { floorBreaches, type InputReach, type IsolationFacts, inputReach } from './isolation-floor.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'ag-input-reach-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NONE: HostPolicy = {
  file: '/etc/agentguard/host-policy.yaml',
  host_paths: [],
  mirrors: [],
  network_hosts: [],
  container_images: [],
  agent_env: [],
  model_relays: [],
};

/** A config in its own folder (the "pack"), with `extra` YAML lines. */
function config(name: string, extra: string[]): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  const file = path.join(dir, 'config.yaml');
  writeFileSync(
    file,
    ['name: t', 'task: {prompt: p}', 'repo: repo', 'test_command: [sh, -c, "true"]', ...extra, ''].join('\n'),
  );
  return file;
}

const facts = (reach: InputReach): IsolationFacts => ({
  file: 'config.yaml',
  sandbox: { kind: 'bwrap', onHost: false },
  tracer: 'ebpf',
  network: 'none',
  setupCommand: false,
  reach,
});

describe("a built-in profile's env_pass, as the input's choice", () => {
  it('counts the names the host has, leaving out those the profile or its scripted model sets', () => {
    const codex = loadConfigOrThrow(config('codex', ['agent_profile: codex']));
    expect(inputReach(codex, {}).env).toEqual([]);
    expect(inputReach(codex, { OPENAI_API_KEY: 'sk-1', CODEX_API_KEY: 'c' }).env.map((e) => e.name)).toEqual([
      'OPENAI_API_KEY',
      'CODEX_API_KEY',
    ]);
    const dir = path.dirname(config('claude', ['agent_profile: claude-code', 'model_script: t.yaml']));
    writeFileSync(path.join(dir, 't.yaml'), 'steps: []\n');
    const claude = loadConfigOrThrow(path.join(dir, 'config.yaml'));
    // Its scripted model sets ANTHROPIC_API_KEY itself: only the model name would come from the host.
    expect(
      inputReach(claude, { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_MODEL: 'm' }).env.map((e) => e.name),
    ).toEqual(['ANTHROPIC_MODEL']);
    const breaches = floorBreaches(
      facts(inputReach(codex, { OPENAI_API_KEY: 'sk-1' })),
      path.dirname(codex.config_path),
      NONE,
    );
    expect(breaches.map((b) => b.field)).toEqual(['agent_profile (codex) env_pass[0]']);
    expect(
      floorBreaches(facts(inputReach(codex, { OPENAI_API_KEY: 'sk-1' })), path.dirname(codex.config_path), {
        ...NONE,
        agent_env: ['OPENAI_API_KEY'],
      }),
    ).toEqual([]);
  });
});

describe('host files the input has agentguard read', () => {
  it('lets files inside its folder through, and refuses one outside by path or by a link inside it', () => {
    const outside = path.join(work, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'rules.yaml'), 'rules: []\n');
    const inside = config('files', []);
    const root = path.dirname(inside);
    writeFileSync(path.join(root, 'own.yaml'), 'rules: []\n');
    symlinkSync(path.join(outside, 'rules.yaml'), path.join(root, 'link.yaml'));
    const cfg = loadConfigOrThrow(inside);
    const reach = (rules: string[]) =>
      facts({
        ...inputReach(cfg, {}),
        files: [
          ...inputReach(cfg, {}).files,
          ...rules.map((p, i) => ({ field: `security.rules[${i}]`, path: p })),
        ],
      });
    expect(floorBreaches(reach([path.join(root, 'own.yaml')]), root, NONE)).toEqual([]);
    for (const p of [
      path.join(outside, 'rules.yaml'),
      path.join(root, 'link.yaml'),
      path.join(root, '../outside/rules.yaml'),
    ]) {
      const b = floorBreaches(reach([p]), root, NONE);
      expect(
        b.map((x) => x.field),
        p,
      ).toEqual(['security.rules[0]']);
      expect(b[0]?.allow).toContain(path.join(outside, 'rules.yaml'));
    }
    // Listed by the operator: by its path, or reached by a link in the input's folder.
    const listing = { ...NONE, host_paths: [outside] };
    expect(floorBreaches(reach([path.join(outside, 'rules.yaml')]), root, listing)).toEqual([]);
    expect(floorBreaches(reach([path.join(root, 'link.yaml')]), root, listing)).toEqual([]);
    // Without a folder of its own (root unset), even its repo is a host folder to list.
    expect(floorBreaches(reach([]), undefined, NONE).map((b) => b.field)).toEqual(['repo']);
  });

  it('lists every path field the loader resolves', () => {
    const file = config('all', [
      'solution: repo',
      'agent_profile: codex',
      'skills: repo',
      'security: {rules: [r.yaml]}',
    ]);
    writeFileSync(path.join(path.dirname(file), 'r.yaml'), 'rules: []\n');
    expect(inputReach(loadConfigOrThrow(file), {}).files.map((f) => f.field)).toEqual([
      'repo',
      'solution',
      'skills',
      'security.rules[0]',
    ]);
  });
});

describe('a container image', () => {
  it('is refused unless the host policy lists it, as written or under a prefix ending in *', () => {
    const image = (containerImage: string, container_images: string[]) =>
      floorBreaches(
        facts({
          mounts: [],
          caches: [],
          mirrors: [],
          allow: [],
          hosts: {},
          env: [],
          files: [],
          containerImage,
        }),
        '/b',
        { ...NONE, container_images },
      ).map((b) => b.field);
    expect(image('docker.io/evil/miner:latest', [])).toEqual(['container.image']);
    expect(image('docker.io/evil/miner:latest', ['docker.io/evil/miner:latest'])).toEqual([]);
    expect(image('docker.io/evil/miner:latest', ['docker.io/evil/*'])).toEqual([]);
    expect(image('docker.io/evil/miner:latest', ['docker.io/evil/miner'])).toEqual(['container.image']);
    expect(image('10.0.0.5:5000/img', ['docker.io/*'])).toEqual(['container.image']);
  });
});
