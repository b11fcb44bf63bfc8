import { capEvidence, nameList, plural } from '../evidence-list.js';
import { normalizePath } from '../path-glob.js';
import { addedLines } from '../secrets/added-lines.js';
import { buildDetectors } from '../secrets/detectors.js';
import type { EvidenceItem } from '../types.js';
import { defineCheck } from './define-check.js';

const WHERE = {
  binary: 'binary file',
  ignored: 'git-ignored file',
  'nested-git': "nested repository's .git",
} as const;

/** Problems listed in evidence before findings, so a flood of findings cannot hide them. */
const MAX_PROBLEM_ITEMS = 10;

/**
 * The stored patch is redacted, so a detector also finds its own redaction marker there. The
 * result never holds a matched value, a literal or a raw line: only detector name, file, line and a
 * short fingerprint. The scan fails closed: if any added content could not be scanned, the check
 * cannot vouch for it.
 */
export const secretContent = defineCheck({
  id: 'secret-content',
  defaultSeverity: 'critical',
  policyKeys: ['secret_detectors', 'secret_presets', 'secret_scan_max_bytes'],
  doc: "No added line, and no byte of an added binary, new or changed git-ignored file or nested repository's .git, matches a secret detector (`secret_detectors`, `secret_presets`, the run's canary tokens in any encoding the scan knows: reversed, hex, base64, base32, escaped, split, compressed); content that could not be scanned fails it too.",
  run: (bundle) => {
    const { config, diff } = bundle;
    const { detectors, invalid } = buildDetectors(config, bundle.canaries?.canaries);
    if (detectors.length === 0 && invalid.length === 0) {
      return {
        passed: true,
        message: 'no secret-content detectors configured',
        evidence: [],
      };
    }

    const problems: string[] = [];
    const problemItems: EvidenceItem[] = [];
    if (invalid.length > 0) {
      problems.push(`${plural(invalid.length, 'detector')} could not be used (${nameList(invalid)})`);
      for (const name of invalid)
        problemItems.push({ detail: `detector ${name} has no usable literal or pattern` });
    }
    if (diff.patch_truncated) {
      problems.push(`the patch was cut at ${diff.patch_bytes} bytes`);
      problemItems.push({ detail: 'patch truncated; content past the cut was not scanned' });
    }

    const { added, hunkFiles } = addedLines(bundle.patch);
    if (!diff.patch_truncated) {
      // A file git counted added lines for but whose hunks are not in the patch was never scanned.
      const missing = diff.files.filter(
        (f) => !f.binary && f.status !== 'deleted' && f.added > 0 && !hunkFiles.has(normalizePath(f.path)),
      );
      if (missing.length > 0) {
        problems.push(
          `${plural(missing.length, 'changed file')} had no hunk in the patch (${nameList(missing.map((f) => f.path))})`,
        );
        for (const f of missing)
          problemItems.push({ path: f.path, detail: 'no hunk in the patch; not scanned' });
      }
    }

    const findings: EvidenceItem[] = [];
    const findingFiles = new Set<string>();
    const findingDetectors = new Set<string>();
    const scannedFiles = new Set<string>();
    let budget = config.secret_scan_max_bytes;
    let scannedLines = 0;
    for (const line of added) {
      const bytes = Buffer.byteLength(line.text, 'utf8') + 1;
      if (bytes > budget) {
        problems.push(
          `the scan budget of ${config.secret_scan_max_bytes} bytes ran out at ${line.path}:${line.line}`,
        );
        problemItems.push({
          path: line.path,
          line: line.line,
          detail: 'scan budget exhausted here; the rest was not scanned',
        });
        break;
      }
      budget -= bytes;
      scannedLines++;
      scannedFiles.add(line.path);
      for (const detector of detectors) {
        const match = detector.find(line.text);
        if (match === null) continue;
        findingFiles.add(line.path);
        findingDetectors.add(detector.name);
        const print = match.fingerprint ? `, fingerprint ${match.fingerprint}` : '';
        findings.push({
          path: line.path,
          line: line.line,
          detail: `detector ${detector.name} (${detector.kind})${print}`,
        });
      }
    }

    // What the patch has no text lines for was scanned byte for byte when the diff was taken.
    const written = diff.written_scan;
    for (const f of written?.findings ?? []) {
      findingFiles.add(f.path);
      findingDetectors.add(f.detector);
      const print = f.fingerprint ? `, fingerprint ${f.fingerprint}` : '';
      const encoded = f.encoding && f.encoding !== 'exact' ? `, ${f.encoding}` : '';
      findings.push({
        path: f.path,
        detail: `detector ${f.detector} (${f.kind})${print}${encoded}, in a ${WHERE[f.where]}`,
      });
    }
    if (written && written.unscanned.length > 0) {
      problems.push(
        `${plural(written.unscanned.length, 'written file')} could not be scanned (${nameList(written.unscanned.map((u) => u.path))})`,
      );
      for (const u of written.unscanned)
        problemItems.push({ path: u.path, detail: `not scanned: ${u.reason}` });
    }
    const binaries = written ? [] : diff.files.filter((f) => f.binary && f.status !== 'deleted');
    const binaryItems = binaries.map((f) => ({ path: f.path, detail: 'binary file; content not scanned' }));

    const parts: string[] = [];
    if (findings.length > 0) {
      parts.push(
        `${plural(findings.length, 'possible secret')} in ${written?.findings.length ? 'what was added to' : 'added lines of'} ${nameList([...findingFiles])} (detectors: ${nameList([...findingDetectors])})`,
      );
    }
    if (problems.length > 0) parts.push(`the scan was incomplete: ${problems.join('; ')}`);
    if (parts.length === 0) {
      parts.push(
        scannedLines === 0
          ? 'no added lines to scan'
          : `no secrets in ${plural(scannedLines, 'added line')} of ${plural(scannedFiles.size, 'file')}`,
      );
      if (written && written.scanned > 0)
        parts.push(`nor in ${plural(written.scanned, 'binary, ignored or nested-git file')}`);
    }
    if (binaries.length > 0) parts.push(`${plural(binaries.length, 'binary file')} not scanned`);

    return {
      passed: findings.length === 0 && problems.length === 0,
      message: parts.join('; '),
      evidence: capEvidence([...problemItems.slice(0, MAX_PROBLEM_ITEMS), ...findings, ...binaryItems]),
    };
  },
});
