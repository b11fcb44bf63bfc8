import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SetupError } from '../errors.js';
import { resolveAgentBin } from './install/resolve-bin.js';
import { parseTrajectory, startModelServer } from './model-server/index.js';
import type { ModelRecord } from './model-server/types.js';
import { loadProfile } from './profiles/load-profile.js';
import { renderProfile } from './profiles/render-profile.js';
import { runsOffline } from './profiles/schema.js';
import { writeRenderedFiles } from './profiles/write-files.js';
import { installSkills } from './skills/install-skills.js';

/** One fact the smoke task checks, in the order it checks them; a failed one says what was seen. */
export type VerifyStep = { step: string; ok: boolean; detail: string };
export type VerifyResult = {
  agent: string;
  version: string | null;
  ok: boolean;
  ms: number;
  steps: VerifyStep[];
};

const PROMPT = 'Check the citations with the agentguard-smoke skill and write report.txt.';
const SKILL = 'agentguard-smoke';
const EXPECTED_REPORT = 'citations ok: 1\n';

/**
 * The offline smoke task of `agentguard agents verify NAME`: the agent, started exactly as its built-in
 * profile renders it, with a fresh HOME and workspace, against a scripted model that reads a skill
 * installed where the agent looks and runs the skill's helper, which writes report.txt. Not sandboxed:
 * the scripted model only asks for those two commands. Same task as the real-profile tests.
 */
export async function verifyAgent(
  name: string,
  opts: { timeoutMs?: number; step?: (label: string) => void } = {},
): Promise<VerifyResult> {
  const profile = loadProfile(name);
  // Before looking for the binary: an online-only agent is refused for what it is, not for being absent.
  if (!runsOffline(profile))
    throw new SetupError(
      `agents verify ${name}: the profile ${profile.file} is online-only (offline: false): ${profile.offline_reason ?? 'no supported setting points the agent at another model endpoint'}; agentguard cannot play its model and does not try the vendor's service. Fix: run it online with 'agentguard run' and your own credentials (the profile's env_pass), or verify an offline agent ('agentguard agents list').`,
    );
  const bin = resolveAgentBin(profile);
  if (!bin.ok) throw new SetupError(`agents verify ${name}: ${bin.message}. Fix: ${bin.fix}.`);
  if (!profile.endpoint)
    throw new SetupError(
      `agents verify ${name}: the profile ${profile.file} names no 'endpoint', so agentguard cannot play its model offline. Fix: set 'endpoint' to the model API the agent speaks (responses, chat, anthropic or gemini).`,
    );
  const started = Date.now();
  const root = mkdtempSync(path.join(tmpdir(), 'agentguard-verify-'));
  try {
    const steps = await smoke(profile, bin.path, root, opts.timeoutMs ?? 150_000, opts.step ?? (() => {}));
    return {
      agent: name,
      version: bin.version,
      ok: steps.every((s) => s.ok),
      ms: Date.now() - started,
      steps,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function smoke(
  profile: ReturnType<typeof loadProfile>,
  binPath: string,
  root: string,
  timeoutMs: number,
  step: (label: string) => void,
): Promise<VerifyStep[]> {
  step('preparing its home, skill and scripted model');
  const repoDir = path.join(root, 'repo');
  const agentHome = path.join(root, 'home');
  const skills = path.join(root, 'skills', SKILL);
  for (const d of [repoDir, agentHome, path.join(skills, 'scripts')]) mkdirSync(d, { recursive: true });
  writeFileSync(path.join(repoDir, 'paper.md'), 'As shown in [@knuth1984].\n');
  writeFileSync(
    path.join(skills, 'SKILL.md'),
    `---\nname: ${SKILL}\ndescription: Check that every citation key resolves.\n---\nRun scripts/check.sh.\n`,
  );
  writeFileSync(path.join(skills, 'scripts', 'check.sh'), 'echo "citations ok: $(grep -c @ paper.md)"\n');
  chmodSync(path.join(skills, 'scripts', 'check.sh'), 0o755);
  const taskFile = path.join(root, 'prompt.md');
  writeFileSync(taskFile, PROMPT);
  const skillDir =
    installSkills(path.dirname(skills), profile, { repoDir, hostHome: agentHome }).installed[0]?.dir ?? '';
  const script = parseTrajectory(
    [
      { shell: `cat ${skillDir}/SKILL.md` },
      { shell: `sh ${skillDir}/scripts/check.sh > report.txt` },
      { final: 'done' },
    ],
    'agents-verify.yaml',
  );

  const steps: VerifyStep[] = [];
  const { url, server } = await startModelServer({ script });
  let records: ModelRecord[] = [];
  try {
    const rendered = renderProfile(profile, {
      prompt: PROMPT,
      taskFile,
      repoDir,
      agentHome,
      modelUrl: url,
      binPath,
      hostEnv: process.env,
    });
    writeRenderedFiles(rendered.files);
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: agentHome,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      TMPDIR: root,
      ...rendered.env,
    };
    if (rendered.version_argv) {
      step('asking the agent its version');
      const [program, ...args] = rendered.version_argv as [string, ...string[]];
      const v = spawnSync(program, args, { env, encoding: 'utf8', timeout: 60_000 });
      // agentguard reads the version from stderr when stdout is empty (pi prints it there).
      const line = (v.stdout.trim() || v.stderr.trim()).split('\n')[0] ?? '';
      const pinned = profile.package?.version;
      steps.push({
        step: 'version',
        ok: v.status === 0 && (pinned === undefined || line.includes(pinned)),
        detail: line || `exit ${v.status}`,
      });
    }
    step(`${profile.name} is running the smoke task`);
    const run = await runAgent(rendered.argv, rendered.cwd, env, timeoutMs);
    records = await server.stop();
    steps.push({
      step: 'exit',
      ok: run.code === 0,
      detail: run.timedOut
        ? `killed after ${timeoutMs} ms (an agent waiting for a permission prompt looks like this; the profile's command must turn its prompts off)`
        : `exit ${run.code} in ${run.ms} ms${run.code === 0 ? '' : `: ${lastLine(run.out)}`}`,
    });
  } finally {
    await server.stop();
  }

  const turns = records.filter((r) => r.kind === 'turn');
  const others = records.filter((r) => r.kind !== 'turn' && r.kind !== 'side' && r.kind !== 'probe');
  steps.push({
    step: 'model',
    ok: turns.length === 3 && others.length === 0 && records.every((r) => r.api === profile.endpoint),
    detail: `${turns.length} of 3 scripted turns answered (${profile.endpoint})${others.length ? `; also ${others.map((r) => `${r.kind} ${r.method} ${r.path}`).join(', ')}` : ''}`,
  });
  const read = turns[1]?.request?.tool_outputs.join('') ?? '';
  steps.push({
    step: 'skill',
    ok: read.includes(`name: ${SKILL}`),
    detail: read.includes(`name: ${SKILL}`)
      ? `read ${skillDir.replace(agentHome, '~')}/SKILL.md`
      : `the output of 'cat ${skillDir}/SKILL.md' never reached the model`,
  });
  const report = path.join(repoDir, 'report.txt');
  const wrote = existsSync(report) ? readFileSync(report, 'utf8') : null;
  steps.push({
    step: 'helper',
    ok: wrote === EXPECTED_REPORT,
    detail: wrote === null ? 'report.txt was not written' : `report.txt: ${JSON.stringify(wrote)}`,
  });
  return steps;
}

function lastLine(out: string): string {
  return (
    out
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .at(-1)
      ?.slice(0, 300) ?? 'no output'
  );
}

type Run = { code: number | null; out: string; ms: number; timedOut: boolean };

/** The agent in its own process group with stdin closed, killed whole at the timeout. */
function runAgent(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv as [string, ...string[]];
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let timedOut = false;
    const keep = (c: Buffer) => {
      out = (out + c.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started, timedOut });
    });
  });
}
