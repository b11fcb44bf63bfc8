import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetConfig, Pricing } from '../../config/schema.js';
import {
  anthropicRequest,
  chatRequest,
  geminiRequest,
  inline,
  parseSse,
  responsesRequest,
} from '../model-server/test-client.js';
import { ModelRelay } from './relay.js';
import { makeTestCa, presentedKey, removeTestCa, startTestProvider, type TestCa } from './test-provider.js';

const REAL = `sk-test-real-${'7'.repeat(24)}`;
const STAND_IN = `agentguard-relay-${'a'.repeat(32)}`;
const trajectory = inline({
  loop_limit: 1000,
  turns: [{ text: 'Looking.', shell: 'ls -la' }, { text: 'Testing.', shell: 'npm test' }, { final: 'Done.' }],
});

let hasOpenssl = true;
try {
  execFileSync('openssl', ['version'], { stdio: 'pipe' });
} catch {
  hasOpenssl = false;
  console.warn('model relay tests skipped: openssl is not installed');
}

/** The four APIs as their clients call them: path, the header that carries the key, and the body. */
const CALLS = [
  {
    name: 'Responses',
    path: '/v1/responses',
    auth: 'bearer',
    body: (s: boolean) => ({ ...responsesRequest([]), stream: s }),
  },
  { name: 'Chat', path: '/v1/chat/completions', auth: 'bearer', body: (s: boolean) => chatRequest([], s) },
  {
    name: 'Anthropic',
    path: '/v1/messages',
    auth: 'x-api-key',
    body: (s: boolean) => anthropicRequest([], s),
  },
  {
    name: 'Gemini',
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    streamPath: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    auth: 'x-goog-api-key',
    body: () => geminiRequest([]),
  },
] as const;

function headersFor(auth: string, key: string): Record<string, string> {
  if (auth === 'bearer') return { authorization: `Bearer ${key}` };
  return { [auth]: key };
}

describe.skipIf(!hasOpenssl)('the model relay against an HTTPS provider', () => {
  let ca: TestCa;
  let dir: string;
  beforeAll(() => {
    ca = makeTestCa();
    dir = mkdtempSync(path.join(os.tmpdir(), 'ag-relay-'));
  });
  afterAll(() => {
    removeTestCa(ca);
    rmSync(dir, { recursive: true, force: true });
  });

  async function withRelay(
    opts: { budget?: BudgetConfig; pricing?: Pricing; model?: string; ca?: string | null },
    body: (
      call: (p: string, b: unknown, h: Record<string, string>) => Promise<Response>,
      r: ModelRelay,
      provider: Awaited<ReturnType<typeof startTestProvider>>,
    ) => Promise<void>,
  ) {
    const provider = await startTestProvider(ca, trajectory, REAL);
    const recordFile = path.join(dir, `model-${Math.random().toString(36).slice(2)}.jsonl`);
    const relay = new ModelRelay({
      provider: provider.url,
      realKey: REAL,
      standIn: STAND_IN,
      recordFile,
      ...(opts.ca === null ? {} : { ca: ca.ca }),
      ...(opts.budget ? { budget: opts.budget } : {}),
      ...(opts.pricing ? { pricing: opts.pricing } : {}),
      ...(opts.model ? { model: opts.model } : {}),
    });
    const { port } = await relay.start();
    const call = (p: string, b: unknown, h: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...h },
        body: JSON.stringify(b),
      });
    try {
      await body(call, relay, provider);
    } finally {
      await relay.stop();
      await provider.stop();
    }
    // Whatever the test did, the real key is in no record the relay kept.
    if (existsSync(recordFile)) expect(readFileSync(recordFile, 'utf8')).not.toContain(REAL);
  }

  for (const c of CALLS)
    for (const stream of [false, true])
      it(`${c.name} ${stream ? 'streamed' : 'as one answer'}: forwarded with the real key, answered as the provider answered, usage exact`, async () => {
        await withRelay({}, async (call, relay, provider) => {
          const p = stream && 'streamPath' in c ? c.streamPath : c.path;
          const res = await call(p, c.body(stream), headersFor(c.auth, STAND_IN));
          const text = await res.text();
          expect(res.status, text).toBe(200);
          if (stream) expect(parseSse(text).length).toBeGreaterThan(1);
          else expect(JSON.parse(text)).toBeTypeOf('object');
          // The provider saw the real key, in the header the client used, and never the stand-in.
          expect(provider.received).toHaveLength(1);
          const got = provider.received[0];
          expect(got && presentedKey(got)).toBe(REAL);
          expect(JSON.stringify(got)).not.toContain(STAND_IN);
          // The relay's usage is the provider's own count, to the token.
          const [stated] = provider.records();
          const [rec] = relay.records;
          expect(rec?.kind).toBe('relayed');
          expect(rec?.usage?.input_tokens).toBe(stated?.request?.input_tokens);
          expect(rec?.usage?.output_tokens).toBe(stated?.response.output_tokens);
          expect(rec?.usage?.input_tokens).toBeGreaterThan(0);
          // What the provider said is recorded as the agent got it: its text and tool calls.
          expect(rec?.response.text).toBe(stated?.response.text);
          expect(rec?.response.tool_calls).toEqual(stated?.response.tool_calls);
          expect(rec?.response.tool_calls.length).toBe(1);
          expect(relay.spent).toMatchObject({ requests: 1, input_tokens: rec?.usage?.input_tokens });
        });
      });

  it('refuses a request without the stand-in key (or with the real one) and never forwards it', async () => {
    await withRelay({}, async (call, relay, provider) => {
      for (const h of [{}, headersFor('bearer', 'something-else'), headersFor('x-api-key', REAL)]) {
        const res = await call('/v1/messages', anthropicRequest([], false), h);
        expect(res.status).toBe(401);
        expect(((await res.json()) as { type: string }).type).toBe('error');
      }
      // Gemini's ?key= with another value is dropped, not passed on.
      const res = await call('/v1beta/models/m:generateContent?key=guess', geminiRequest([]), {});
      expect(res.status).toBe(401);
      expect(provider.received).toHaveLength(0);
      expect(relay.records.map((r) => r.kind)).toEqual(['refused', 'refused', 'refused', 'refused']);
    });
  });

  it("forwards only the model endpoints: the stand-in buys nothing else of the provider's", async () => {
    await withRelay({}, async (call, _relay, provider) => {
      for (const p of ['/v1/files', '/v1/organization/api_keys', '/v1/fine_tuning/jobs', '/api/hello']) {
        const res = await call(p, {}, headersFor('bearer', STAND_IN));
        expect(res.status).toBe(404);
      }
      expect(provider.received).toHaveLength(0);
    });
  });

  it('swaps a stand-in given in the query (Gemini ?key=) and keeps no key in the record', async () => {
    await withRelay({}, async (call, relay, provider) => {
      const res = await call(`/v1beta/models/m:generateContent?key=${STAND_IN}`, geminiRequest([]), {});
      expect(res.status).toBe(200);
      expect(provider.received[0] && presentedKey(provider.received[0])).toBe(REAL);
      expect(relay.records[0]?.path).not.toContain(STAND_IN);
    });
  });

  it('sends the configured model in place of the one the agent names (body and Gemini path)', async () => {
    await withRelay({ model: 'real-model-1' }, async (call, _relay, provider) => {
      await (
        await call('/v1/chat/completions', chatRequest([], false), headersFor('bearer', STAND_IN))
      ).text();
      await (
        await call(
          '/v1beta/models/scripted:generateContent',
          geminiRequest([]),
          headersFor('x-goog-api-key', STAND_IN),
        )
      ).text();
      expect(JSON.parse(provider.received[0]?.body ?? '{}').model).toBe('real-model-1');
      expect(provider.received[1]?.path).toBe('/v1beta/models/real-model-1:generateContent');
    });
  });

  it('max_requests: the request past the cap is refused in its own API and never reaches the provider', async () => {
    await withRelay({ budget: { max_requests: 2 } }, async (call, relay, provider) => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await call(
          '/v1/responses',
          { ...responsesRequest([]), stream: false },
          headersFor('bearer', STAND_IN),
        );
        statuses.push(res.status);
        const body = (await res.json()) as { error?: { message: string } };
        if (res.status !== 200) expect(body.error?.message).toMatch(/max_requests 2 reached/);
      }
      expect(statuses).toEqual([200, 200, 400, 400]);
      expect(provider.received).toHaveLength(2);
      expect(relay.records.map((r) => r.kind)).toEqual(['relayed', 'relayed', 'budget', 'budget']);
    });
  });

  it('max_tokens and max_usd: overshoot at most the one answer that crossed the cap', async () => {
    const pricing = { currency: 'USD', input_per_million: 1_000_000, output_per_million: 1_000_000 };
    for (const budget of [{ max_tokens: 150 }, { max_usd: 150 }]) {
      await withRelay({ budget, pricing }, async (call, relay, provider) => {
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          const res = await call(
            '/v1/messages',
            anthropicRequest([], true),
            headersFor('x-api-key', STAND_IN),
          );
          statuses.push(res.status);
          if (res.status === 400)
            expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
              /max_(tokens|usd) 150 reached/,
            );
          else await res.text();
        }
        const answered = statuses.filter((s) => s === 200).length;
        expect(answered).toBeGreaterThan(0);
        expect(statuses.slice(answered).every((s) => s === 400)).toBe(true);
        // Every answer but the last stayed below the cap; the last crossed it.
        const used = relay.spent.input_tokens + relay.spent.output_tokens;
        const last = relay.records[answered - 1]?.usage;
        expect(used).toBeGreaterThanOrEqual(150);
        expect(used - (last ? last.input_tokens + last.output_tokens : 0)).toBeLessThan(150);
        expect(provider.received).toHaveLength(answered);
      });
    }
  });

  it('a provider whose certificate no trusted CA signed is not sent the key', async () => {
    await withRelay({ ca: null }, async (call, relay, provider) => {
      const res = await call('/v1/chat/completions', chatRequest([], false), headersFor('bearer', STAND_IN));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /could not be reached/,
      );
      expect(provider.received).toHaveLength(0);
      expect(relay.records[0]?.kind).toBe('error');
    });
  });
});
