import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { RUN_FILES } from './layout.js';
import { isCredentialOption, type KnownSecret, type Redactor, redactionMarker } from './redact.js';
import { writeFileAtomic } from './write.js';

/** Builds the run's redactor; `seen` collects replaced values, `secrets` adds values to replace verbatim. */
export type RedactorFactory = (extra: {
  seen?: Map<string, string>;
  secrets?: readonly KnownSecret[];
}) => Redactor;

/** Folders written while the agent ran: the evidence, and the live guard's incident. */
const SWEPT = ['evidence', 'guard'];

/** Learned values shorter than this are not replaced verbatim in raw logs: too likely to hit innocent text. */
const MIN_LEARNED_LENGTH = 8;

/**
 * Rewrite a run's evidence folder redacted, once the run-specific secrets are known (the canary
 * tokens exist only once the window opens; commands, the agent log, the tracer's raw output and
 * the model's records are appended while the agent runs). JSON files are redacted value by value
 * and written back in the same layout; then raw text (diff.patch, agent.log, evidence/tracer/)
 * is redacted with everything the JSON pass replaced as well, since a tracer's log can carry an
 * option and its value on separate lines. canaries.json stays: it is the list of what to redact.
 */
export function redactEvidenceFiles(runDir: string, make: RedactorFactory): void {
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
    else if (file.endsWith('.json')) rewrite(file, (t) => redactJson(t, structured));
    else if (file.endsWith('.jsonl')) rewrite(file, (t) => redactJsonLines(t, structured));
    else raw.push(file);
  }
  const learned = [...seen]
    .filter(([value]) => value.length >= MIN_LEARNED_LENGTH)
    .map(([value, name]) => ({ name, value, hashed: true }));
  const text = make({ secrets: learned });
  for (const file of raw) rewrite(file, (t) => text.text(redactSplitOptions(t)));
}

// The last JSON string of a line, e.g. the argument in the ebpf tracer's `[1, key, t, "--token"]}`.
const LAST_STRING = /"((?:[^"\\]|\\.)*)"(?=[\]}\s]*$)/;

/**
 * A credential option on one line and its value on the next, as a tracer that sends one argv
 * element a record writes them: the value is replaced as the argv pair rule would (the writers
 * redacted the assembled events before this log could be read back, so nothing was learned there).
 */
function redactSplitOptions(text: string): string {
  if (!text.includes('"-')) return text;
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const option = LAST_STRING.exec(lines[i] as string)?.[1];
    if (option === undefined || !isCredentialOption(option)) continue;
    const next = lines[i + 1] as string;
    const value = LAST_STRING.exec(next);
    if (!value || value[1] === undefined || value[1] === '' || /^(?:-|\$|\[REDACTED)/.test(value[1]))
      continue;
    const at = value.index;
    lines[i + 1] =
      `${next.slice(0, at)}"${redactionMarker('cli-credential', value[1])}"${next.slice(at + value[0].length)}`;
  }
  return lines.join('\n');
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

function rewrite(file: string, redact: (text: string) => string): void {
  const bytes = readFileSync(file);
  // Binary content (a NUL byte) is not text a secret can be found in reliably; leave it whole.
  if (bytes.includes(0)) return;
  const text = bytes.toString('utf8');
  const out = redact(text);
  if (out !== text) writeFileAtomic(file, out);
}

function listFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const full = path.join(dir, name);
    const st = statSync(full, { throwIfNoEntry: false });
    if (!st) return [];
    if (st.isDirectory()) return listFiles(full);
    return st.isFile() ? [full] : [];
  });
}
