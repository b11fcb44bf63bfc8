import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORT_FILES, reportPath } from '../../src/reports/reporters.js';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canTrace = isRoot && has('bpftrace') && has('strace') && has('bwrap');
if (!canTrace)
  console.warn('redaction e2e tests skipped: they need root, bwrap, bpftrace and strace (CI runs them)');

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

const alnum = (n: number) =>
  randomBytes(n * 2)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, n);
// Fresh per test run, and assembled at run time so no credential-looking literal sits in the source.
// Longer than one ebpf string chunk (127 bytes), so the raw tracer log carries it in pieces.
const API_KEY = `${'sk'}-test-${alnum(150)}`;
const TOKEN = alnum(28);
const BEARER = alnum(40);
const AWS_ID = `${'AKIA'}${alnum(16).toUpperCase()}`;
const AWS_SECRET = `${alnum(20)}/${alnum(19)}`;

/**
 * An agent that leaks on every path the tester found: credentials in its own argv (both option
 * forms), a bearer header from its environment echoed and passed to a child, two canary files read
 * to stdout, and an AWS key pair written into `deploy/prod.env`.
 */
const AGENT = [
  'set -e',
  'echo "args: $*"',
  'echo "$AUTH_HEADER"',
  '/bin/true -H "$AUTH_HEADER"',
  'cat "$HOME/.aws/credentials" "$HOME/.env"',
  'mkdir -p deploy',
  `printf 'AWS_ACCESS_KEY_ID=%s\\nAWS_SECRET_ACCESS_KEY=%s\\n' "${AWS_ID}" "${AWS_SECRET}" > deploy/prod.env`,
].join('\n');

function task(): string {
  const dir = path.join(work, 'task');
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'a task\n');
  writeFileSync(path.join(dir, 'agent.sh'), AGENT);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'name: leaky',
      'task: {prompt: do the task}',
      'repo: repo',
      'test_command: [sh, -c, "true"]',
      'agent_environment: [AUTH_HEADER]',
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}, --api-key=${API_KEY}, --token, ${TOKEN}]`,
    ].join('\n'),
  );
  return config;
}

/** Every file of the run folder but the agent's own workspace, HOME and the canary list (see below). */
function artifactFiles(dir: string, runDir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const rel = path.relative(runDir, full);
    // repo/ and baseline.git/ are the agent's workspace and its git data: the agent's own work,
    // kept as it left it, and grading/ the copy of it the tests ran in. home/ is the canary HOME (the canaries' source), and canaries.json is
    // the list the redactor works from. Everything else is an artifact agentguard wrote about the run.
    if (['repo', 'baseline.git', 'grading', 'home', 'evidence/canaries.json'].includes(rel)) return [];
    const st = statSync(full);
    if (st.isDirectory()) return artifactFiles(full, runDir);
    return st.isFile() ? [full] : [];
  });
}

async function leakyRun(tracer: 'ebpf' | 'strace') {
  const out = path.join(work, `out-${tracer}`);
  const r = await execCli(['run', task(), '--tracer', tracer, '--sandbox', 'bwrap', '--output-dir', out], {
    cwd: work,
    env: { AUTH_HEADER: `Authorization: Bearer ${BEARER}` },
  });
  const runDir = path.dirname(r.stdout.match(/report: (.*report\.md)/)?.[1] ?? '');
  return { r, out, runDir };
}

describe.skipIf(!canTrace)('no planted secret survives in a run folder, history or console', () => {
  for (const tracer of ['ebpf', 'strace'] as const) {
    it(`${tracer}: every artifact and history.db are free of the planted values, and the verdict stands`, async () => {
      const { r, out, runDir } = await leakyRun(tracer);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('secret-content');
      expect(r.stdout).toContain('secret-paths');
      expect(r.stdout).toContain('deploy/prod.env');

      const canaries: { token: string }[] = JSON.parse(
        readFileSync(path.join(runDir, 'evidence/canaries.json'), 'utf8'),
      ).canaries;
      const planted = [API_KEY, TOKEN, BEARER, AWS_ID, AWS_SECRET, ...canaries.map((c) => c.token)];
      // The agent really did leak them: its workspace and HOME hold them, so absence below is redaction.
      expect(readFileSync(path.join(runDir, 'repo/deploy/prod.env'), 'utf8')).toContain(AWS_SECRET);

      // history.db with its journal files, if any are left beside it.
      const history = readdirSync(out)
        .filter((f) => f.startsWith('history.db'))
        .map((f) => path.join(out, f));
      expect(history).toContain(path.join(out, 'history.db'));
      const files = [...artifactFiles(runDir, runDir), ...history];
      expect(files.map((f) => path.relative(runDir, f))).toEqual(
        expect.arrayContaining([
          'config.json',
          ...REPORT_FILES,
          'evidence/commands.jsonl',
          'evidence/syscalls.jsonl',
          'evidence/agent.log',
          'evidence/diff.patch',
        ]),
      );
      expect(files.some((f) => f.includes('evidence/tracer/'))).toBe(true);
      // A long value is also looked for in pieces: a log that cuts strings into chunks holds no whole copy.
      const pieces = planted.flatMap((v) =>
        v.length <= 32
          ? [v]
          : Array.from({ length: Math.floor(v.length / 24) }, (_, i) => v.slice(i * 24, i * 24 + 24)),
      );
      const leaks: string[] = [];
      for (const file of files) {
        const bytes = readFileSync(file);
        for (const value of pieces)
          if (bytes.includes(value)) leaks.push(`${path.relative(runDir, file)}: ${value.slice(0, 6)}…`);
      }
      expect(leaks).toEqual([]);
      for (const value of planted) expect(r.stdout + r.stderr).not.toContain(value);

      // What was there is still visible as a marker, and equal secrets give equal markers.
      const config = readFileSync(path.join(runDir, 'config.json'), 'utf8');
      const apiMarker = config.match(/--api-key=(\[REDACTED:[a-z-]+:[0-9a-f]{8}\])/)?.[1] as string;
      expect(apiMarker).toBeDefined();
      expect(readFileSync(path.join(runDir, 'evidence/commands.jsonl'), 'utf8')).toContain(apiMarker);
      expect(readFileSync(path.join(runDir, 'evidence/diff.patch'), 'utf8')).toMatch(
        /\+AWS_ACCESS_KEY_ID=\[REDACTED:aws-access-key:[0-9a-f]{8}\]/,
      );
      expect(readFileSync(path.join(runDir, 'evidence/agent.log'), 'utf8')).toContain('[REDACTED:canary-');

      // The stored, redacted evidence still gives the same verdict when analysed again.
      const report = JSON.parse(readFileSync(reportPath(runDir, 'json'), 'utf8'));
      expect(report.failed_checks).toEqual(expect.arrayContaining(['secret-content', 'secret-paths']));
      const again = await execCli(['analyze', runDir, '--json'], { cwd: work });
      expect(JSON.parse(again.stdout).checks).toEqual(report.checks);
    });
  }

  it('the dry-run plan shows the command with its credentials redacted', async () => {
    const r = await execCli(['run', task(), '--dry-run'], { cwd: work });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--api-key=[REDACTED:');
    expect(r.stdout).toContain('--token [REDACTED:');
    expect(r.stdout).not.toContain(API_KEY);
    expect(r.stdout).not.toContain(TOKEN);
  });
});

describe('the console escapes control characters in names the agent chose', () => {
  it('run and analyze print a file name with an OSC title sequence, a colour and a newline escaped', async () => {
    const dir = path.join(work, 'escapes');
    mkdirSync(dir, { recursive: true });
    // Write the odd names from node so the shell plays no part in the bytes.
    const script = path.join(dir, 'agent.js');
    writeFileSync(
      script,
      "require('node:fs').writeFileSync('x\\x1b]0;pwned\\x07\\nFAKE LINE.txt', '');" +
        "require('node:fs').writeFileSync('\\x1b[31mred.txt', '');",
    );
    const config = path.join(dir, 'config.yaml');
    const slugify = path.join(BENCHMARKS, 'js-slugify');
    writeFileSync(
      config,
      [
        'name: escapes',
        'task: {prompt: write files}',
        `repo: ${JSON.stringify(path.join(slugify, 'repo'))}`,
        'test_command: [node, --test, test/]',
        'allowed_paths: ["src/**"]',
        `agent_command: [node, ${JSON.stringify(script)}]`,
      ].join('\n'),
    );
    const r = await execCli(['run', config, '--tracer', 'off'], { cwd: work });
    expect(r.code).toBe(1);
    const runDir = path.dirname(r.stdout.match(/report: (.*report\.md)/)?.[1] ?? '');
    const again = await execCli(['analyze', runDir], { cwd: work });
    for (const out of [r.stdout, again.stdout]) {
      expect(out).toContain('x\\x1b]0;pwned\\x07\\nFAKE LINE.txt');
      expect(out).toContain('\\x1b[31mred.txt');
      expect(out).not.toContain('\x07');
      expect(out).not.toContain('\x1b');
      expect(out.split('\n').some((line) => line.startsWith('FAKE LINE'))).toBe(false);
    }
  });
});
