import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runModelServerCli } from './cli.js';
import { post, responsesRequest } from './test-client.js';

const HELLO = path.join(import.meta.dirname, 'fixtures', 'hello.yaml');
const dir = mkdtempSync(path.join(tmpdir(), 'agentguard-model-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  let onLine: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => {
    onLine = resolve;
  });
  return {
    out,
    err,
    firstLine,
    io: {
      out: (text: string) => {
        const l = text.replace(/\n$/, '');
        out.push(l);
        onLine(l);
      },
      err: (text: string) => err.push(text.replace(/\n$/, '')),
    },
  };
}

describe('model-server command', () => {
  it('prints the URL once listening, serves, records, and summarises on stop', async () => {
    const record = path.join(dir, 'model.jsonl');
    const t = io();
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const done = runModelServerCli(['--script', HELLO, '--record', record], t.io, stopped);
    const url = await t.firstLine;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await post(`${url}/v1/responses`, responsesRequest([]))).status).toBe(200);
    stop();
    expect(await done).toBe(0);
    expect(t.out).toEqual([url]);
    expect(t.err.at(-1)).toMatch(
      /stopped after 1 requests, 1 scripted turns, ~\d+ input and ~\d+ output tokens/,
    );
    expect(readFileSync(record, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it.each([
    [[], /--script FILE is required\. Fix: pass the trajectory file/],
    [['--script', HELLO, '--port', 'x'], /--port must be a whole number from 0 to 65535, not 'x'/],
    [['--script', HELLO, '--bogus'], /Unknown option '--bogus'/],
    [['--script', path.join(dir, 'none.yaml')], /none.yaml: the trajectory file does not exist\. Fix:/],
  ])('exits 2 with one clear message for %j', async (argv, pattern) => {
    const t = io();
    expect(await runModelServerCli(argv, t.io, Promise.resolve())).toBe(2);
    expect(t.err[0]).toMatch(pattern);
    expect(t.out).toEqual([]);
  });

  it('names the file, turn and fix of a malformed trajectory', async () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'turns:\n  - shell: ls\n  - when:\n      - contains: x\n        final: a\n        next: nowhere\n',
    );
    const t = io();
    expect(await runModelServerCli(['--script', file], t.io, Promise.resolve())).toBe(2);
    expect(t.err[0]).toBe(
      `model-server: ${file}: field 'turns[1].when[0].next': names turn id 'nowhere', which no turn has. Fix: add \`id:\` to the target turn.`,
    );
  });
});
