import { describe, expect, it } from 'vitest';
import { baseRedactor, redactionMarker } from '../../evidence/redact.js';
import { redactEbpfRawLog } from './raw-log-redaction.js';
import { KEY_CHUNK, KEY_TID, MAX_STRING_BYTES, SLOT_ARGV, SLOT_PATH } from './record-format.js';

const TID = 4242;
const T = 3937725119809;
const part = (slot: number, chunk: number, text: string) =>
  `{"type": "value", "data": [1,${TID * KEY_TID + chunk * KEY_CHUNK + slot},${T},${JSON.stringify(text)}]}`;
/** One string as the probes send it: chunks of MAX_STRING_BYTES, each its own record. */
const parts = (slot: number, text: string) =>
  Array.from({ length: Math.ceil(text.length / MAX_STRING_BYTES) }, (_, i) =>
    part(slot, i, text.slice(i * MAX_STRING_BYTES, (i + 1) * MAX_STRING_BYTES)),
  );

const TOKEN = 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1H';
const LONG_KEY = `${'sk'}-test-${'Q1w2E3r4T5y6U7i8O9p0'.repeat(8)}`;

describe('redactEbpfRawLog', () => {
  it('redacts an option and its value sent as separate records, and a long value sent in chunks', () => {
    const argv = ['agent', '--token', TOKEN, `--api-key=${LONG_KEY}`];
    const call = '{"type": "value", "data": [2,4242,3937725119809,10,1,59,0,4,-1,-1,0,0,"/bin/agent"]}';
    const tick = '{"type": "value", "data": [6,3937725119900]}';
    const log = [...argv.flatMap((a, i) => parts(SLOT_ARGV + i, a)), call, tick, ''].join('\n');
    expect(log.split('\n').length).toBeGreaterThan(argv.length + 3);

    const out = redactEbpfRawLog(log, baseRedactor);
    expect(out).not.toContain(TOKEN);
    for (let i = 0; i < LONG_KEY.length; i += 20) expect(out).not.toContain(LONG_KEY.slice(i, i + 20));
    expect(out).toContain(JSON.stringify(redactionMarker('cli-credential', TOKEN)));
    expect(out).toContain(JSON.stringify(`--api-key=${redactionMarker('openai-key', LONG_KEY)}`));
    // Same records, same keys: only the strings changed; other records are untouched.
    expect(out.split('\n').length).toBe(log.split('\n').length);
    expect(out).toContain(call);
    expect(out).toContain(tick);
    expect(out).toContain(part(SLOT_ARGV, 0, 'agent'));
  });

  it('leaves a log without secrets byte for byte as it was', () => {
    const log = [...parts(SLOT_PATH, '/tmp/work/repo/src/index.js'), ...parts(SLOT_ARGV, 'node')].join('\n');
    expect(redactEbpfRawLog(log, baseRedactor)).toBe(log);
  });
});
