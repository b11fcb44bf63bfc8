import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../package-root.js';
import { type ReportWhy, whyLine } from '../../reports/why.js';

/** One thing doctor checked: whether it works here, and the command that would fix it. */
export type Finding = { component: string; name: string; works: boolean; detail: string; fix: string };

/** The task doctor runs: the demo's smallest, with the agent that applies its reference fix. */
const TRIAL = ['benchmarks', 'js-slugify', 'config.yaml'];
const TRIAL_TIMEOUT_MS = 180_000;
/** The trial run as the progress line names it. */
export const TRIAL_NAME = 'js-slugify, mock-solve';

type TrialReport = {
  result: string;
  duration_ms: number;
  why: ReportWhy | null;
  observation?: {
    sandbox?: { kind?: string };
    tracer?: { kind?: string };
    fallbacks?: { reason?: string }[];
  };
};

/**
 * One real run, as the user who asked and with the defaults a run of theirs gets: the rows above say
 * what each part can do alone, this says whether they work together (a tracer that refuses what the
 * sandbox needs, a folder the run user cannot read, a bridge that cannot listen).
 */
export async function trialRun(): Promise<Finding> {
  const user = os.userInfo();
  const name = `a run as ${user.username} (uid ${user.uid})`;
  const root = packageRoot();
  const out = mkdtempSync(path.join(os.tmpdir(), 'agentguard-doctor-'));
  try {
    // The run's own user must reach the output folder's run (the workspace is bound, not copied).
    chmodSync(out, 0o755);
    const config = path.join(root, ...TRIAL);
    const args = ['run', config, '--agent', 'mock-solve', '--output-dir', out, '--json'];
    const r = await runCli(path.join(root, 'dist', 'cli', 'main.js'), args);
    const report = parseReport(r.stdout);
    if (report === null) {
      const said = lastLine(r.stderr) ?? `exit ${r.code}`;
      return {
        component: 'run',
        name,
        works: false,
        detail: `the run did not finish: ${said}`,
        fix: fixOf(said),
      };
    }
    const seconds = (report.duration_ms / 1000).toFixed(1);
    const obs = report.observation;
    const how = `${obs?.sandbox?.kind ?? '?'} sandbox, ${obs?.tracer?.kind ?? '?'} tracer`;
    const fell = (obs?.fallbacks ?? [])
      .map((f) => f.reason)
      .filter((x): x is string => typeof x === 'string');
    if (report.result === 'PASS') {
      const note = fell.length > 0 ? `; fell back: ${fell.join('; ')}` : '';
      return { component: 'run', name, works: true, detail: `PASS in ${seconds} s (${how})${note}`, fix: '' };
    }
    const why = (report.why ? whyLine(report.why) : null) ?? `exit ${r.code}`;
    return {
      component: 'run',
      name,
      works: false,
      detail: `${report.result} in ${seconds} s (${how}): ${why}`,
      fix: fixOf(why),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function runCli(
  main: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => stdout.push(b));
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    const timer = setTimeout(() => child.kill('SIGTERM'), TRIAL_TIMEOUT_MS);
    const done = (code: number | null) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    };
    child.on('error', () => done(null));
    child.on('close', (code) => done(code));
  });
}

function parseReport(stdout: string): TrialReport | null {
  try {
    const r = JSON.parse(stdout) as TrialReport;
    return typeof r.result === 'string' ? r : null;
  } catch {
    return null;
  }
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .at(-1);
}

/** The fix the run named ("… Fix: X"), or where to look. */
export function fixOf(said: string): string {
  const m = said.match(/Fix: (.*)$/);
  // Doctor is what the fix would send the user to: that advice is dropped here, the rest kept.
  const fix =
    m?.[1] === undefined
      ? ''
      : balanced(m[1])
          .replace(DOCTOR_ADVICE, '')
          .replace(/^; |; $/, '');
  if (fix !== '') return fix;
  return `run 'agentguard run ${TRIAL.join('/')} --agent mock-solve' to keep the run's report, and read it`;
}

/** `run 'agentguard doctor' as the same user` (with the `; ` or `, or ` joining it to the rest). */
const DOCTOR_ADVICE = /(, or |; )?run 'agentguard doctor' as the same user(; )?/;

/** The fix without the closing brackets of the sentence it was quoted in. */
function balanced(text: string): string {
  let t = text.trim();
  const count = (c: string) => t.split(c).length - 1;
  while (t.endsWith(')') && count(')') > count('(')) t = t.slice(0, -1).trimEnd();
  return t;
}
