// Runs the real agents exactly as their built-in profiles render them, against the scripted model
// server, with a benchmark skill installed where each agent looks: the scripted model reads the
// skill and runs its helper. Agents come from agentguard's cache (`agentguard agents install NAME`,
// or scripts/install-test-agents.sh); an agent that is not there skips with the reason printed.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAgentBin } from '../install/resolve-bin.js';
import { parseTrajectory, startModelServer } from '../model-server/index.js';
import { installSkills } from '../skills/install-skills.js';
import { loadProfile } from './load-profile.js';
import { renderProfile } from './render-profile.js';
import { writeRenderedFiles } from './write-files.js';

const TIMEOUT_MS = 150_000;
const PROMPT = 'Check the citations with the citation-check skill and write report.txt.';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function agent(name: string) {
  const profile = loadProfile(name);
  const bin = resolveAgentBin(profile);
  if (bin.ok) return { name, profile, bin: bin.path, skip: false as const };
  const reason = `${bin.message} (fix: ${bin.fix})`;
  console.warn(`real ${name} profile test skipped: ${reason}`);
  return { name, profile, bin: '', skip: reason };
}

type Run = { code: number | null; out: string; ms: number };

function run(argv: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv as [string, ...string[]];
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out = (out + c.toString()).slice(-20_000);
    });
    child.stderr.on('data', (c: Buffer) => {
      out = (out + c.toString()).slice(-20_000);
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

describe('built-in profiles run the real agents, offline, with a skill', () => {
  it.for([
    agent('codex'),
    agent('claude-code'),
    agent('opencode'),
    agent('gemini-cli'),
    agent('qwen-code'),
    agent('pi'),
    agent('kilocode'),
    agent('copilot'),
  ])(
    '$name reads the installed skill and runs its helper',
    { timeout: TIMEOUT_MS + 20_000 },
    async (a, ctx) => {
      if (a.skip) return ctx.skip(a.skip);
      const root = mkdtempSync(path.join(tmpdir(), 'agentguard-real-profile-'));
      temps.push(root);
      const repoDir = path.join(root, 'repo');
      const agentHome = path.join(root, 'home');
      const skills = path.join(root, 'bench', 'skills', 'citation-check');
      for (const d of [repoDir, agentHome, path.join(skills, 'scripts')]) mkdirSync(d, { recursive: true });
      writeFileSync(path.join(repoDir, 'paper.md'), 'As shown in [@knuth1984].\n');
      writeFileSync(
        path.join(skills, 'SKILL.md'),
        '---\nname: citation-check\ndescription: Check that every citation key resolves.\n---\nRun scripts/check.sh.\n',
      );
      writeFileSync(path.join(skills, 'scripts', 'check.sh'), 'echo "citations ok: $(grep -c @ paper.md)"\n');
      chmodSync(path.join(skills, 'scripts', 'check.sh'), 0o755);
      const taskFile = path.join(root, 'prompt.md');
      writeFileSync(taskFile, PROMPT);

      const installed = installSkills(path.dirname(skills), a.profile, { repoDir, hostHome: agentHome });
      const skillDir = installed.installed[0]?.dir ?? '';
      const script = parseTrajectory(
        [
          { shell: `cat ${skillDir}/SKILL.md` },
          { shell: `sh ${skillDir}/scripts/check.sh > report.txt` },
          { final: 'done' },
        ],
        'skill-run.yaml',
      );
      const { url, server } = await startModelServer({ script });
      try {
        const rendered = renderProfile(a.profile, {
          prompt: PROMPT,
          taskFile,
          repoDir,
          agentHome,
          modelUrl: url,
          binPath: a.bin,
          hostEnv: process.env,
        });
        writeRenderedFiles(rendered.files);
        const env = {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: agentHome,
          LANG: 'C.UTF-8',
          TERM: 'dumb',
          NO_COLOR: '1',
          TMPDIR: '/tmp',
          ...rendered.env,
        };
        const version = spawnSync(rendered.version_argv?.[0] ?? '', rendered.version_argv?.slice(1) ?? [], {
          env,
          encoding: 'utf8',
          timeout: 60_000,
        });
        // agentguard takes the version from stderr when stdout is empty (pi prints it there).
        expect(version.stdout || version.stderr).toContain(a.profile.package?.version);

        const result = await run(rendered.argv, rendered.cwd, env);
        const records = await server.stop();
        console.log(`real ${a.name} profile run: ${result.ms} ms wall, ${records.length} model requests`);
        expect(result.code, result.out).toBe(0);
        expect(readFileSync(path.join(repoDir, 'report.txt'), 'utf8')).toBe('citations ok: 1\n');
        const turns = records.filter((r) => r.kind === 'turn');
        expect(turns.map((r) => r.turn)).toEqual([1, 2, 3]);
        expect(turns[1]?.request?.tool_outputs.join('')).toContain('name: citation-check');
        expect(records.every((r) => r.api === a.profile.endpoint)).toBe(true);
      } finally {
        await server.stop();
      }
    },
  );
});
