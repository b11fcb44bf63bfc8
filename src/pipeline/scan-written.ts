import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { decompressed } from '../analysis/secrets/canary-match.js';
import { buildDetectors, type SecretDetector } from '../analysis/secrets/detectors.js';
import type { ResolvedConfig } from '../config/schema.js';
import { CanaryEvidenceSchema } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import type { DiffEvidence, WrittenScan } from '../evidence/types.js';
import { displayPath } from '../workspace/byte-paths.js';
import { readEntry } from '../workspace/ignored-hashes.js';
import { walkTree } from '../workspace/walk-tree.js';

type Target = { path: string; abs: Buffer; where: WrittenScan['findings'][number]['where'] };

/**
 * The bytes the agent wrote that the patch does not show as text lines, scanned with the
 * secret-content detectors and the run's canary tokens (in their encodings): binary files of the
 * diff, new and changed git-ignored files, the files of ignored nested repositories, and the
 * object stores of nested repositories (loose objects inflated; packs cannot be read here and are
 * listed as unscanned, so the check fails closed). A link is scanned as its target's name.
 */
export function scanWrittenBytes(
  cfg: ResolvedConfig,
  runDir: string,
  repoDir: string,
  diff: DiffEvidence,
): WrittenScan {
  const scan: WrittenScan = { scanned: 0, findings: [], unscanned: [] };
  const detectors = buildDetectors(cfg, readCanaries(runDir)).detectors;
  if (detectors.length === 0 || diff.error !== undefined) return scan;
  let budget = cfg.secret_scan_max_bytes;
  const root = Buffer.from(repoDir);
  const at = (rel: string) => Buffer.concat([root, Buffer.from(`/${rel}`)]);
  const targets: Target[] = [];
  for (const f of diff.files) {
    if (f.binary && f.status !== 'deleted') targets.push({ path: f.path, abs: at(f.path), where: 'binary' });
  }
  for (const p of diff.ignored_files) {
    if (!p.endsWith('/')) targets.push({ path: p, abs: at(p), where: 'ignored' });
    else {
      for (const e of walkTree(path.join(repoDir, p), () => false).entries)
        targets.push({ path: `${p}${displayPath(e.rel)}`, abs: e.abs, where: 'ignored' });
    }
  }
  for (const c of diff.ignored_changed ?? []) {
    if (c.status === 'modified') targets.push({ path: c.path, abs: at(c.path), where: 'ignored' });
  }
  for (const dir of diff.nested_repositories ?? []) {
    const gitDir = path.join(repoDir, dir, '.git');
    for (const e of walkTree(gitDir, () => false).entries) {
      const rel = displayPath(e.rel);
      targets.push({ path: `${dir}/.git/${rel}`, abs: e.abs, where: 'nested-git' });
    }
  }
  for (const t of targets) {
    const entry = readEntry(t.abs);
    if (entry === null) {
      scan.unscanned.push({ path: t.path, reason: 'could not be read' });
      continue;
    }
    let data = entry.data;
    if (t.where === 'nested-git' && /(^|\/)objects\/pack\//.test(t.path) && t.path.endsWith('.pack')) {
      scan.unscanned.push({ path: t.path, reason: 'a packed object store (compressed): not read' });
      continue;
    }
    if (t.where === 'nested-git' && /(^|\/)objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(t.path)) {
      try {
        data = inflateSync(data);
      } catch {
        // not a loose object after all: scanned as it is
      }
    }
    if (data.length > budget) {
      scan.unscanned.push({ path: t.path, reason: `the scan budget (secret_scan_max_bytes) ran out` });
      continue;
    }
    budget -= data.length;
    scan.scanned++;
    // latin1 keeps every byte as one character: an ASCII secret behind a NUL byte is still found.
    const text = data.toString('latin1');
    // A gzip or zlib file (a .gz fixture, a compressed cache) is scanned inflated too, within the budget.
    const inflated = t.where === 'nested-git' ? null : decompressed(data, budget);
    if (inflated) budget -= inflated.length;
    for (const d of detectors) {
      if (!find(d, text, t, scan) && inflated) find(d, inflated.toString('latin1'), t, scan, 'compressed');
    }
  }
  return scan;
}

function find(d: SecretDetector, text: string, t: Target, scan: WrittenScan, via?: string): boolean {
  const match = d.find(text);
  if (match === null) return false;
  const encoding = via === undefined ? match.encoding : `${via}+${match.encoding ?? 'exact'}`;
  scan.findings.push({
    path: t.path,
    where: t.where,
    detector: d.name,
    kind: d.kind,
    ...(match.fingerprint ? { fingerprint: match.fingerprint } : {}),
    ...(encoding ? { encoding } : {}),
  });
  return true;
}

function readCanaries(runDir: string): { kind: string; token: string }[] {
  try {
    const file = runPath(runDir, 'canaries');
    if (!statSync(file).isFile()) return [];
    const parsed = CanaryEvidenceSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data.canaries : [];
  } catch {
    return [];
  }
}
