import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic, writeJson } from '../evidence/write.js';

/** Where an audit's report goes: `<output-dir>/audits/<id>/`, beside runs/ and batches/. */
export function auditDir(outputDir: string, id: string): string {
  return path.join(outputDir, 'audits', id);
}

export const AUDIT_FILES = { json: 'audit.json', markdown: 'audit.md' } as const;

/** audit.json and audit.md, each written whole (temp file, then rename). Returns the folder. */
export function writeAudit(dir: string, audit: unknown, markdown: string): string {
  mkdirSync(dir, { recursive: true });
  writeJson(path.join(dir, AUDIT_FILES.json), audit);
  writeFileAtomic(path.join(dir, AUDIT_FILES.markdown), markdown);
  return dir;
}
