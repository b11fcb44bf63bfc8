import type { Redactor } from '../../evidence/redact.js';
import { MAX_ARGV, REC_PART, SLOT_ARGV } from './record-format.js';
import { parseLine, quickRecordType } from './record-parser.js';

/** The bpftrace output file in the tracer's scratch folder (evidence/tracer/). */
export const EBPF_RAW_LOG = 'ebpf-raw.jsonl';

type Piece = { line: number; slot: number; chunk: number; text: string };

// The string that ends a PART record line: `{"type": "value", "data": [1,key,t,"…"]}`.
const PART_STRING = /"(?:[^"\\]|\\.)*"(?=\]\}\s*$)/;

/**
 * bpftrace's raw output, redacted as the events assembled from it were. Strings travel as PART
 * records, one argv element or one chunk of a long string a line, so `--token` and its value, or
 * a long key cut into chunks, never share a line a text redactor could look at. Each event's
 * strings are put back together (argv in slot order, so the option-value rule applies), redacted,
 * and a string that changed goes whole into its first chunk's record, the other chunks emptied.
 */
export function redactEbpfRawLog(text: string, redactor: Redactor): string {
  const lines = text.split('\n');
  const events = new Map<string, Piece[]>();
  lines.forEach((line, index) => {
    if (quickRecordType(line) !== REC_PART) return;
    const parsed = parseLine(line);
    if (parsed.kind !== 'record' || parsed.record.type !== 'part') return;
    const { tid, t, slot, chunk, bytes } = parsed.record;
    const key = `${tid}:${t}`;
    const pieces = events.get(key) ?? [];
    pieces.push({ line: index, slot, chunk, text: bytes.toString('utf8') });
    events.set(key, pieces);
  });

  for (const pieces of events.values()) {
    const slots = new Map<number, Piece[]>();
    for (const p of pieces) slots.set(p.slot, [...(slots.get(p.slot) ?? []), p]);
    const whole = new Map<number, string>();
    for (const [slot, chunks] of slots) {
      chunks.sort((a, b) => a.chunk - b.chunk);
      whole.set(slot, chunks.map((c) => c.text).join(''));
    }
    const argvSlots: number[] = [];
    for (let s = SLOT_ARGV; s < SLOT_ARGV + MAX_ARGV && whole.has(s); s++) argvSlots.push(s);
    const argv = redactor.value(argvSlots.map((s) => whole.get(s) as string));
    for (const [slot, original] of whole) {
      const at = argvSlots.indexOf(slot);
      const redacted = at >= 0 ? (argv[at] as string) : redactor.text(original);
      if (redacted === original) continue;
      for (const [i, piece] of (slots.get(slot) ?? []).entries()) {
        const replacement = JSON.stringify(i === 0 ? redacted : '');
        lines[piece.line] = (lines[piece.line] as string).replace(PART_STRING, () => replacement);
      }
    }
  }
  return lines.join('\n');
}
