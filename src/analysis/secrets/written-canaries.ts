import type { EvidenceBundle } from '../../analysis/evidence-bundle.js';
import type { PatchFinding, WrittenLeak } from '../rules/types.js';
import { addedLines } from './added-lines.js';
import { buildDetectors } from './detectors.js';

/**
 * The run's canary tokens in what the agent wrote, as `canary` patch findings for the rules: the
 * same canary detectors the secret-content check runs over the added lines, and the canary findings
 * of the byte scan of what the patch has no text for (`diff.written_scan`). One finding per file
 * and canary; what is named is the detector, its encoding and a fingerprint, never the value.
 */
export function writtenCanaries(bundle: EvidenceBundle): PatchFinding[] {
  const out: PatchFinding[] = [];
  const seen = new Set<string>();
  const push = (file: string, line: number, leak: WrittenLeak) => {
    const key = `${file}\u0000${leak.detector}`;
    if (seen.has(key)) return;
    seen.add(key);
    const how = leak.encoding && leak.encoding !== 'exact' ? `, ${leak.encoding}` : '';
    out.push({ file, line, finding: 'canary', text: `${leak.detector}${how} in ${leak.where}`, leak });
  };
  const canaries = buildDetectors(bundle.config, bundle.canaries?.canaries).detectors.filter(
    (d) => d.kind === 'canary',
  );
  if (canaries.length > 0 && bundle.patch) {
    for (const line of addedLines(bundle.patch).added) {
      for (const d of canaries) {
        const m = d.find(line.text);
        if (m === null) continue;
        push(line.path, line.line, {
          where: 'added-line',
          detector: d.name,
          kind: 'canary',
          ...(m.encoding ? { encoding: m.encoding } : {}),
          ...(m.fingerprint ? { fingerprint: m.fingerprint } : {}),
        });
      }
    }
  }
  for (const f of bundle.diff.written_scan?.findings ?? []) {
    if (f.kind !== 'canary') continue;
    push(f.path, 0, {
      where: f.where,
      detector: f.detector,
      kind: 'canary',
      ...(f.encoding ? { encoding: f.encoding } : {}),
      ...(f.fingerprint ? { fingerprint: f.fingerprint } : {}),
    });
  }
  return out;
}
