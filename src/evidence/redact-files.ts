import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { RUN_FILES } from './layout.js';
import { READ_LIMITS, readEvidenceBytes } from './read.js';
import type { KnownSecret, Redactor } from './redact.js';
import { rootBaseName } from './root-files.js';
import { writeFileAtomic } from './write.js';

/** Builds the run's redactor; `seen` collects replaced values, `secrets` adds values to replace verbatim. */
export type RedactorFactory = (extra: {
  seen?: Map<string, string>;
  secrets?: readonly KnownSecret[];
}) => Redactor;

/**
 * A raw log whose layout splits what belongs together (a tracer's one-string-a-record output):
 * redacts it with knowledge of that layout, before the plain text pass.
 */
export type RawFormatRedaction = (text: string, redactor: Redactor) => string;

/** Folders written while the agent ran: the evidence, and the live guard's incident. */
const SWEPT = ['evidence', 'guard'];

/** Learned values shorter than this are not replaced verbatim in raw logs: too likely to hit innocent text. */
const MIN_LEARNED_LENGTH = 8;

/**
 * Rewrite a run's evidence folder redacted, once the run-specific secrets are known (the canary
 * tokens exist only once the window opens; commands, the agent log, the tracer's raw output and
 * the model's records are appended while the agent runs). JSON files are redacted value by value
 * and written back in the same layout; then raw text (diff.patch, agent.log, evidence/tracer/)
 * is redacted with everything the JSON pass replaced as well, after a format-aware pass for logs
 * named in `rawFormats`. canaries.json stays: it is the list of what to redact.
 */
export function redactEvidenceFiles(
  runDir: string,
  make: RedactorFactory,
  rawFormats: Readonly<Record<string, RawFormatRedaction>> = {},
): void {
  const files = SWEPT.flatMap((d) => listFiles(path.join(runDir, d))).filter(
    (f) => f !== path.join(runDir, RUN_FILES.canaries) && !f.endsWith('.tmp'),
  );
  const seen = new Map<string, string>();
  const structured = make({ seen });
  const raw: string[] = [];
  const tracerDir = path.join(runDir, RUN_FILES.tracerScratch) + path.sep;
  for (const file of files) {
    // A tracer's output is raw whatever its format: one argv element a record, strings in chunks.
    if (file.startsWith(tracerDir)) raw.push(file);
    else if (file.endsWith('.json')) rewrite(runDir, file, (t) => redactJson(t, structured));
    else if (file.endsWith('.jsonl')) rewrite(runDir, file, (t) => redactJsonLines(t, structured));
    else raw.push(file);
  }
  const learned = [...seen]
    .filter(([value]) => value.length >= MIN_LEARNED_LENGTH)
    .map(([value, name]) => ({ name, value, hashed: true }));
  const text = make({ secrets: learned });
  for (const file of raw) {
    // A tracer's second and later commands (`ebpf-raw.1.jsonl`) write the first one's format.
    const format = rawFormats[rootBaseName(path.basename(file))];
    rewrite(runDir, file, (t) => text.text(format ? format(t, text) : t));
  }
}

function redactJson(text: string, redactor: Redactor): string {
  try {
    return `${JSON.stringify(redactor.value(JSON.parse(text)), null, 2)}\n`;
  } catch {
    return redactor.text(text);
  }
}

function redactJsonLines(text: string, redactor: Redactor): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      try {
        return JSON.stringify(redactor.value(JSON.parse(line)));
      } catch {
        return redactor.text(line);
      }
    })
    .join('\n');
}

/** Read through the reader for folders someone else writes: a link planted here is never read through. */
function rewrite(runDir: string, file: string, redact: (text: string) => string): void {
  const bytes = readEvidenceBytes(file, { maxBytes: READ_LIMITS.jsonl, within: runDir });
  // Binary content (a NUL byte) is not text a secret can be found in reliably; leave it whole.
  if (bytes.includes(0)) return;
  const text = bytes.toString('utf8');
  const out = redact(text);
  if (out !== text) writeFileAtomic(file, out);
}

/** The regular files below `dir`, itself a real folder; a link (to a secret file outside, say) is skipped, not followed. */
function listFiles(dir: string): string[] {
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (!st) return [];
    if (st.isDirectory()) return listFiles(full);
    return st.isFile() ? [full] : [];
  });
}
