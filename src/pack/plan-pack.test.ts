import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, InputError } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { loadRegistry } from '../registry/registry-file.js';
import { buildPack } from './build-pack.js';
import { linkStaysInside } from './entry-names.js';
import { importPack } from './import-pack.js';
import { planPack } from './plan-pack.js';
import { DEFAULT_LIMITS, scanZip } from './read-zip.js';
import { verifyPack } from './verify-pack.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'ag-pack-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A registry folder with a copy of py-inventory whose config gets `extra` appended. */
function registryWith(name: string, extra: string): string {
  const dir = path.join(work, name);
  cpSync(path.join(packageRoot(), 'benchmarks/py-inventory'), path.join(dir, 'tasks/py-inventory'), {
    recursive: true,
  });
  const config = path.join(dir, 'tasks/py-inventory/config.yaml');
  writeFileSync(config, `${readText(config)}${extra}`);
  writeFileSync(
    path.join(dir, 'registry.yaml'),
    `schema: 1
families:
  - id: py-inventory
    category: bug-fix
    difficulty: easy
    tags: [python, unittest, data-structures]
    versions:
      - version: 1.0.0
        configs: [tasks/py-inventory/config.yaml]
`,
  );
  return path.join(dir, 'registry.yaml');
}

function readText(file: string): string {
  return readFileSync(file, 'utf8');
}

describe('planning a pack', () => {
  it('packs what a command reaches through {config_dir}/.. at the same relative place, and moves the repo', () => {
    const file = registryWith('helper', `agent_command: [sh, -c, '. "$0/../helper.sh"', '{config_dir}']\n`);
    writeFileSync(path.join(path.dirname(file), 'tasks/helper.sh'), 'echo hi\n');
    const registry = loadRegistry(file);
    const plan = planPack(registry, registry.families);
    expect([...plan.files.keys()].sort()).toEqual(
      expect.arrayContaining([
        'configs/tasks/helper.sh',
        'configs/tasks/py-inventory/config.yaml',
        'configs/tasks/py-inventory/solution/inventory/stock.py',
        'repos/py-inventory/inventory/stock.py',
        'registry.yaml',
      ]),
    );
    const config = plan.files.get('configs/tasks/py-inventory/config.yaml');
    expect(config && 'bytes' in config ? config.bytes.toString() : '').toContain(
      'repo: "../../../repos/py-inventory"',
    );
  });

  it('refuses a config that names a file outside the registry folder, naming the field', () => {
    writeFileSync(path.join(work, 'outside-rules.yaml'), 'rules: []\n');
    const file = registryWith('outside', 'security:\n  rules: [../../../outside-rules.yaml]\n');
    const registry = loadRegistry(file);
    let error: unknown;
    try {
      planPack(registry, registry.families);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => `${i.field}: ${i.message}`)).toEqual([
      `security.rules[0]: names ${path.join(work, 'outside-rules.yaml')}, outside the registry's folder ${path.join(work, 'outside')}, which a pack cannot carry`,
    ]);
  });

  it('refuses a template symlink that leaves its folder', () => {
    const file = registryWith('link', '');
    symlinkSync('/etc/passwd', path.join(path.dirname(file), 'tasks/py-inventory/repo/passwd'));
    const registry = loadRegistry(file);
    expect(() => planPack(registry, registry.families)).toThrow(InputError);
  });
});

describe('links', () => {
  it('may climb only before the first name: after a name that may itself be a link, .. is refused', () => {
    expect(linkStaysInside('repos/r/a/l', '../b/c', 'repos/r')).toBe(true);
    expect(linkStaysInside('repos/r/a/l', '../../b', 'repos/r')).toBe(false);
    expect(linkStaysInside('repos/r/a/l', 'x/../../b', 'repos/r')).toBe(false);
    expect(linkStaysInside('repos/r/l', '.', 'repos/r')).toBe(false);
    expect(linkStaysInside('repos/r/l', '/etc/passwd', 'repos/r')).toBe(false);
  });
});

describe('limits', () => {
  it('refuses an archive over the total, per-file and entry-count limits before reading content', async () => {
    const file = registryWith('limits', '');
    const registry = loadRegistry(file);
    mkdirSync(path.join(work, 'out'), { recursive: true });
    const zip = path.join(work, 'out/p.zip');
    await buildPack(registry, registry.families, zip, { name: 'p', version: '1.0.0' });
    expect((await verifyPack(zip)).ok).toBe(true);
    const total = await scanZip(zip, { ...DEFAULT_LIMITS, maxTotalBytes: 9000 });
    expect(total.ok ? [] : total.problems.map((p) => p.reason).join()).toMatch(
      /takes the pack over 9000 bytes in all/,
    );
    const one = await scanZip(zip, { ...DEFAULT_LIMITS, maxEntryBytes: 1000 });
    expect(one.ok ? [] : one.problems.map((p) => p.reason).join()).toMatch(
      /over the 1000-byte limit for one file/,
    );
    const count = await scanZip(zip, { ...DEFAULT_LIMITS, maxEntries: 3 });
    expect(count.ok ? [] : count.problems.map((p) => p.reason).join()).toMatch(
      /entries, over the limit of 3/,
    );
  }, 60_000);
});

describe('a safe relative symlink', () => {
  it('is packed as a link, verified, and imported as the same link', async () => {
    const file = registryWith('safe-link', '');
    symlinkSync('inventory/stock.py', path.join(path.dirname(file), 'tasks/py-inventory/repo/stock-link.py'));
    const registry = loadRegistry(file);
    const zip = path.join(work, 'safe-link.zip');
    const built = await buildPack(registry, registry.families, zip, { name: 'p', version: '1.0.0' });
    expect(built.manifest.files).toContainEqual(
      expect.objectContaining({
        path: 'repos/py-inventory/stock-link.py',
        type: 'symlink',
        target: 'inventory/stock.py',
      }),
    );
    const into = path.join(work, 'safe-link-import');
    const r = await importPack(zip, { into });
    expect(r.verdict.ok).toBe(true);
    expect(readlinkSync(path.join(into, 'repos/py-inventory/stock-link.py'))).toBe('inventory/stock.py');
    expect(readFileSync(path.join(into, 'repos/py-inventory/stock-link.py'), 'utf8')).toContain(
      'class Inventory',
    );
  }, 60_000);
});
