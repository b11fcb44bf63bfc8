import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli, tempDir } from './exec-cli.js';

/**
 * Token usage from a real endpoint: no scripted model, the agent calls a provider over plain HTTP
 * through the proxy (a local server answering as OpenAI Chat, gzipped, and as a streamed Anthropic
 * Messages answer). The proxy reads the usage fields it forwards; the report, its cost and a batch
 * summary carry them, and say the source.
 */
const isRoot = process.getuid?.() === 0;
const runnable = isRoot && spawnSync('sh', ['-c', 'command -v bwrap && command -v curl']).status === 0;
if (!runnable) console.warn('wire usage e2e skipped: it needs root, bwrap and curl');

const work = tempDir('ag-wire-usage-');
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/chat/completions') {
        const body = {
          object: 'chat.completion',
          usage: {
            prompt_tokens: 1200,
            completion_tokens: 80,
            prompt_tokens_details: { cached_tokens: 1000 },
          },
        };
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify(body)));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of [
        { type: 'message_start', message: { usage: { input_tokens: 300, output_tokens: 1 } } },
        { type: 'content_block_delta', delta: { type: 'text_delta', text: 'ok' } },
        { type: 'message_delta', usage: { output_tokens: 45 } },
      ])
        res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server?.close();
  rmSync(work, { recursive: true, force: true });
});

function task(): string {
  const dir = path.join(work, 'task');
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'ask the model\n');
  writeFileSync(
    path.join(dir, 'agent.sh'),
    [
      "curl -s --compressed -d '{}' http://llm.test/v1/chat/completions > /dev/null",
      "curl -s -N -d '{}' http://llm.test/v1/messages > /dev/null",
      'touch done.txt',
    ].join('\n'),
  );
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'name: wire-usage',
      'task: {prompt: ask}',
      'repo: repo',
      "test_command: [sh, -c, 'test -f done.txt']",
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
      `network: {mode: allowlist, allow: [llm.test], hosts: {llm.test: "127.0.0.1:${port}"}}`,
      'pricing: {currency: USD, input_per_million: 2, cached_input_per_million: 0.5, output_per_million: 10}',
    ].join('\n'),
  );
  return config;
}

describe.skipIf(!runnable)('tokens from a real endpoint, read by the proxy', () => {
  it('a run and a batch count what the provider said it used', { timeout: 120_000 }, async () => {
    const config = task();
    const r = await execCli(['run', config, '--sandbox', 'bwrap', '--tracer', 'off', '--json'], {
      cwd: work,
    });
    const report = JSON.parse(r.stdout);
    expect(report.result, r.stderr).toBe('PASS');
    // Anthropic's 300 input tokens have no cached part: input 1500, of it cached 1000.
    expect(report.usage).toMatchObject({
      requests: 2,
      input_tokens: 1500,
      output_tokens: 125,
      cached_tokens: 1000,
    });
    // (500 × 2 + 1000 × 0.5 + 125 × 10) / 1e6
    expect(report.usage.cost).toBe(0.00275);
    expect(report.usage.source).toContain('(openai-chat, anthropic) in 2 plain-HTTP answer(s)');
    const records = readFileSync(path.join(report.run_dir, 'evidence/network.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((x) => x.usage?.api)).toEqual(['openai-chat', 'anthropic']);
    expect(readFileSync(path.join(report.run_dir, 'report.md'), 'utf8')).toContain(
      '1,500 input and 125 output tokens',
    );

    const b = await execCli(
      [
        'benchmark',
        config,
        '--agents',
        'agent-command',
        '--trials',
        '2',
        '--sandbox',
        'bwrap',
        '--tracer',
        'off',
        '--json',
      ],
      {
        cwd: work,
      },
    );
    expect(b.stdout, b.stderr).not.toBe('');
    const summary = JSON.parse(b.stdout);
    const usage = summary.groups[0].usage;
    expect(usage, b.stdout.slice(0, 2000)).toMatchObject({ input_tokens: 3000, output_tokens: 250 });
  });
});
