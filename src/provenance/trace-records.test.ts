import { describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../analysis/types.js';
import { compare } from '../pipeline/replay-run.js';
import { canonicalJson } from './digest.js';
import { chain, filesDigest, GENESIS, recordHash, type TraceBody } from './trace-records.js';

const bodies: TraceBody[] = [
  { kind: 'run', run_id: 'r1', started_at: 'a', finished_at: 'b', stopped: null },
  { kind: 'check', id: 'scope', passed: false, severity: 'error' },
  { kind: 'alert', rule: 'read-ssh-key', severity: 'critical', syscall: 'openat', event_seq: 7, phase: null },
  { kind: 'score', result: 'FAIL', score: 40 },
];

describe('the trace hash chain', () => {
  it('links each record to the one before it, from the genesis hash', () => {
    const records = chain(bodies);
    expect(records[0]?.prev).toBe(GENESIS);
    for (let i = 1; i < records.length; i++) expect(records[i]?.prev).toBe(records[i - 1]?.hash);
    for (const r of records) expect(recordHash(r, r.prev)).toBe(r.hash);
  });

  it('hashes canonical JSON: key order does not matter, content and order of records do', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 1, e: 0 }] } })).toBe(
      '{"a":{"c":[3,{"e":0,"f":1}],"d":2},"b":1}',
    );
    const head = chain(bodies).at(-1)?.hash;
    const reordered = chain([bodies[0], bodies[2], bodies[1], bodies[3]] as TraceBody[]).at(-1)?.hash;
    expect(reordered).not.toBe(head);
    const edited = chain([
      bodies[0],
      { ...bodies[1], passed: true } as TraceBody,
      bodies[2],
      bodies[3],
    ] as TraceBody[]);
    expect(edited.at(-1)?.hash).not.toBe(head);
  });

  it('digests a file list independently of its order', () => {
    const a = { path: 'a', sha256: '1'.repeat(64), bytes: 1 };
    const b = { path: 'b', sha256: '2'.repeat(64), bytes: 2 };
    expect(filesDigest([a, b])).toBe(filesDigest([b, a]));
    expect(filesDigest([a, b])).not.toBe(filesDigest([a, { ...b, bytes: 3 }]));
  });
});

describe('replay equivalence', () => {
  const analysis = (passed: boolean, alerts: number): AnalysisResult =>
    ({
      checks: [{ id: 'scope', passed, severity: 'error', message: '', evidence: [] }],
      alerts: Array.from({ length: alerts }, () => ({ rule: 'read-ssh-key', seq: 7, severity: 'critical' })),
      score: { score: passed ? 100 : 40, result: passed ? 'PASS' : 'FAIL', deductions: [] },
    }) as unknown as AnalysisResult;

  it('is equivalent when verdict, score, checks and alerts match', () => {
    expect(compare('r1', chain(bodies), analysis(false, 1), 'stored').equivalent).toBe(true);
  });

  it('names the check that changed and the alert that went away', () => {
    const e = compare('r1', chain(bodies), analysis(true, 0), 'lenient.yaml');
    expect(e.equivalent).toBe(false);
    expect(e.verdict).toEqual({ stored: 'FAIL', replayed: 'PASS' });
    expect(e.checks).toEqual([{ id: 'scope', stored: false, replayed: true }]);
    expect(e.alerts.only_stored).toEqual([{ rule: 'read-ssh-key', seq: 7, phase: null }]);
  });
});

describe('manifest JSON Schema', () => {
  it('is exported from the zod schema, with the version and every artifact field', async () => {
    const { manifestJsonSchema } = await import('./manifest-schema.js');
    const schema = manifestJsonSchema() as {
      properties: Record<string, { items?: { required?: string[] } }>;
      required: string[];
    };
    expect(schema.required).toEqual(expect.arrayContaining(['schema_version', 'run_id', 'files', 'trace']));
    expect(schema.properties.files?.items?.required).toEqual(['path', 'sha256', 'bytes']);
  });
});
