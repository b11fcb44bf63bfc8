import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readModelEvidence } from './model-evidence.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ag-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (seq: number) =>
  JSON.stringify({
    seq,
    ts: seq,
    at: 1000 + seq,
    duration_ms: 1,
    kind: 'turn',
    turn: seq,
    request: null,
    response: { text: 't', tool_calls: [], stop: 'end_turn' },
  });

function file(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

describe('readModelEvidence', () => {
  it('reads every exchange, and none when the run had no scripted model', () => {
    expect(
      readModelEvidence(file('ok.jsonl', `${record(1)}\n${record(2)}\n`))?.exchanges.map((e) => e.seq),
    ).toEqual([1, 2]);
    expect(readModelEvidence(path.join(dir, 'absent.jsonl'))).toBeNull();
  });

  it('keeps what comes before a record cut mid-line or of the wrong shape, and says why it stopped', () => {
    const cut = readModelEvidence(file('cut.jsonl', `${record(1)}\n${record(2).slice(0, 30)}`));
    expect(cut?.exchanges).toHaveLength(1);
    expect(cut?.problem).toBe(
      'evidence/model.jsonl line 2 is not JSON (cut mid-line: the run was ended while it was written); the exchanges after it are not used',
    );
    const wrong = readModelEvidence(file('wrong.jsonl', `${record(1)}\n{"seq":"two"}\n${record(3)}\n`));
    expect(wrong?.exchanges).toHaveLength(1);
    expect(wrong?.problem).toMatch(/^evidence\/model\.jsonl line 2 is not a model exchange \(seq: /);
  });
});
