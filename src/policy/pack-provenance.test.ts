import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IMPORTED_MARK, PACK_MANIFEST, packFloor, packOfConfig } from './pack-provenance.js';

const root = mkdtempSync(path.join(tmpdir(), 'ag-provenance-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function config(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, 'name: x\n');
  return file;
}

describe('packOfConfig', () => {
  it("is null for the operator's own config", () => {
    const file = config(path.join(root, 'own/task'));
    expect(packOfConfig(file)).toBeNull();
    expect(packFloor(file, '--allow-below-floor')).toBeUndefined();
  });

  it('finds the import mark in any folder above, naming the pack', () => {
    const imported = path.join(root, 'imported');
    const file = config(path.join(imported, 'configs/deep/task'));
    writeFileSync(path.join(imported, IMPORTED_MARK), JSON.stringify({ pack: 'p', version: '1.2.3' }));
    expect(packOfConfig(file)).toBe(`pack 'p@1.2.3' (imported into ${imported})`);
    expect(packFloor(file, '--allow-below-floor')?.allowFlag).toBe('--allow-below-floor');
  });

  it('finds a pack unpacked by hand by its manifest, and a config reached by a link by its real path', () => {
    const unpacked = path.join(root, 'unzipped');
    const file = config(path.join(unpacked, 'configs/task'));
    writeFileSync(path.join(unpacked, PACK_MANIFEST), '{}');
    expect(packOfConfig(file)).toBe(`the pack unpacked in ${unpacked}`);
    const link = path.join(root, 'own/link.yaml');
    symlinkSync(file, link);
    expect(packOfConfig(link)).toBe(`the pack unpacked in ${unpacked}`);
  });

  it('counts a mark it cannot read as a mark', () => {
    const odd = path.join(root, 'odd');
    const file = config(path.join(odd, 'c'));
    mkdirSync(path.join(odd, IMPORTED_MARK));
    expect(packOfConfig(file)).toBe(`pack of unknown name (imported into ${odd})`);
  });
});
