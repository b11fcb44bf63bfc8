import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { IsolationFloor } from './isolation-floor.js';

/*
 * How a run knows that a config came from a pack, which someone other than the operator wrote: a
 * pack's manifest is at the root of every pack unpacked (by `pack import` or by hand), and `pack
 * import` also writes a provenance mark at the root and beside every config it imports. A config
 * with either in its folder or any folder above — by the path it was named with or by its real
 * path, so a link from elsewhere does not hide it — is run no lower than the isolation floor. A pack
 * cannot remove a mark: the walk goes to `/`, and an entry named like the mark is refused on import.
 */

/** The manifest at the root of every pack. */
export const PACK_MANIFEST = 'agentguard-pack.json';
/** What `pack import` writes at the root of the import and beside each config it imports. */
export const IMPORTED_MARK = '.agentguard-imported.json';

/** What the mark says: the pack and where it was imported from. */
export type ImportedMark = { pack: string; version: string; root: string; archive: string };

const MAX_MARK_BYTES = 64 * 1024;

/** The pack a config lies in, in words (`pack 'p@1.0.0' (imported into DIR)`), or null when it lies in none. */
export function packOfConfig(configPath: string): string | null {
  return packRootOfConfig(configPath)?.what ?? null;
}

/**
 * The pack a config lies in: in words, and the folder it was imported or unpacked into. The walk
 * goes on past the mark beside the config to the outermost mark or manifest, the import's root: a
 * pack's configs share its folder (the attack cases' scripted agent beside them), and a mark can
 * be written only by `pack import`, never by a pack.
 */
export function packRootOfConfig(configPath: string): { what: string; root: string } | null {
  const starts = [path.dirname(path.resolve(configPath))];
  try {
    starts.push(path.dirname(realpathSync(configPath)));
  } catch {
    // the loader has read it; a config that is gone now is said by whoever reads it next
  }
  let found: { what: string; root: string } | null = null;
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const mark = path.join(dir, IMPORTED_MARK);
      if (exists(mark)) found = { what: `pack ${describeMark(mark)} (imported into ${dir})`, root: dir };
      else if (exists(path.join(dir, PACK_MANIFEST)))
        found = { what: `the pack unpacked in ${dir}`, root: dir };
      if (path.dirname(dir) === dir) break;
    }
    if (found) return found;
  }
  return null;
}

/** The floor of a config from a pack (its isolation and its judgement), or undefined for the operator's own. */
export function packFloor(configPath: string, allowFlag: string): IsolationFloor | undefined {
  const pack = packRootOfConfig(configPath);
  return pack === null
    ? undefined
    : { input: `this config, from ${pack.what},`, allowFlag, root: pack.root, judgement: true };
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function describeMark(file: string): string {
  try {
    if (!lstatSync(file).isFile() || lstatSync(file).size > MAX_MARK_BYTES) return 'of unknown name';
    const mark = JSON.parse(readFileSync(file, 'utf8')) as Partial<ImportedMark>;
    return typeof mark.pack === 'string' && typeof mark.version === 'string'
      ? `'${mark.pack}@${mark.version}'`
      : 'of unknown name';
  } catch {
    return 'of unknown name';
  }
}
