import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadTrajectory } from '../../src/agents/model-server/trajectory.js';
import { listBuiltinProfiles, loadProfile } from '../../src/agents/profiles/load-profile.js';
import { runsOffline } from '../../src/agents/profiles/schema.js';
import { loadMatrixFile } from '../../src/batch/batch-file.js';
import { loadConfigOrThrow } from '../../src/config/load.js';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

/**
 * benchmarks/agents-matrix.yaml, the shipped reference for evaluating several real agents side by side:
 * every offline-capable built-in agent × the three demo tasks × 2 trials with scripted models. Loaded and
 * checked here in full; one cell of it (pi × js-slugify × 1 trial) runs for real in the sandbox.
 */
const MATRIX = path.join(BENCHMARKS, 'agents-matrix.yaml');
const DEMOS = ['js-slugify', 'py-inventory', 'sh-logrotate'];
const SOLVED: Record<string, string> = {
  'js-slugify': 'src/slugify.js',
  'py-inventory': 'inventory/stock.py',
  'sh-logrotate': 'bin/logrotate.sh',
};
const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('benchmarks/agents-matrix.yaml', () => {
  it('is every offline-capable built-in agent × the three demo tasks × 2 trials', () => {
    const m = loadMatrixFile(MATRIX);
    const offline = listBuiltinProfiles().filter((n) => runsOffline(loadProfile(n)));
    expect(offline).toHaveLength(8);
    expect(m.agents.map((a) => a.name).sort()).toEqual(offline);
    for (const a of m.agents) expect(a).toEqual({ name: a.name, kind: 'profile', profile: a.name });
    expect(m.configPaths).toEqual(DEMOS.map((t) => path.join(BENCHMARKS, 'agents/demos', t, 'config.yaml')));
    expect(m.trials).toBe(2);
    expect(m.agents.length * m.configPaths.length * m.trials).toBe(48);
  });

  it.each(DEMOS)(
    '%s: the scripted copy is the demo task itself, plus an agent, a model script and prices',
    (task) => {
      const original = loadConfigOrThrow(path.join(BENCHMARKS, task, 'config.yaml'));
      const scripted = loadConfigOrThrow(path.join(BENCHMARKS, 'agents/demos', task, 'config.yaml'));
      const drop = (c: Record<string, unknown>) => {
        const {
          name: _n,
          config_path: _p,
          config_dir: _d,
          solution: _s,
          agent_profile: _a,
          model_script: _m,
          pricing: _price,
          ...rest
        } = c;
        return rest;
      };
      // Same prompt, repository, tests, policy and benchmark identity: results compare with the demo's.
      expect(drop(scripted)).toEqual(drop(original));
      expect(scripted.repo).toBe(original.repo);
      expect(scripted.name).toBe(`${original.name}-scripted`);
      expect(scripted.model_script).toBe(path.join(BENCHMARKS, 'agents/demos', task, 'trajectory.yaml'));
    },
  );

  it.each(DEMOS)(
    '%s: the scripted model writes exactly the reference solution, then runs the tests',
    (task) => {
      const trajectory = loadTrajectory(path.join(BENCHMARKS, 'agents/demos', task, 'trajectory.yaml'));
      const commands = trajectory.turns.flatMap((t) =>
        t.kind === 'body' ? t.body.calls.flatMap((c) => (c.kind === 'shell' ? [c.command] : [])) : [],
      );
      const file = SOLVED[task] as string;
      const write = commands.find((c) => c.endsWith(`| base64 -d > ${file}`));
      const encoded = write?.match(/^echo ([A-Za-z0-9+/=]+) \| base64 -d > /)?.[1] ?? '';
      expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(
        readFileSync(path.join(BENCHMARKS, task, 'solution', file), 'utf8'),
      );
      expect(commands.indexOf(write as string)).toBe(1);
      expect(commands).toHaveLength(3);
    },
  );
});

// One cell for real: the matrix's own pi entry and js-slugify task, one trial, in the bwrap sandbox.
const cache = process.env.AGENTGUARD_AGENT_CACHE ?? path.join(os.homedir(), '.cache/agentguard/agents');
const piReady = process.getuid?.() === 0 && existsSync(path.join(cache, 'pi/node_modules/.bin/pi'));
if (!piReady) console.warn('agents-matrix slice skipped: needs root and scripts/install-test-agents.sh pi');

describe.skipIf(!piReady)('a slice of benchmarks/agents-matrix.yaml, run for real', () => {
  it('pi × js-slugify × 1 trial: the scripted model drives the real pi to the fix, and the run PASSes', async () => {
    const shipped = parse(readFileSync(MATRIX, 'utf8')) as {
      tasks: string[];
      agents: { name: string }[];
    };
    const slice = path.join(work, 'slice.yaml');
    writeFileSync(
      slice,
      stringify({
        tasks: shipped.tasks.filter((t) => t.includes('js-slugify')).map((t) => path.join(BENCHMARKS, t)),
        agents: shipped.agents.filter((a) => a.name === 'pi'),
        trials: 1,
      }),
    );
    const r = await execCli(['matrix', slice, '--tracer', 'strace', '--json'], {
      cwd: work,
      env: { HOME: os.homedir() },
    });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      complete: boolean;
      rows: { agent: string; task: string; result: string; tests_passed: boolean; run_dir: string }[];
      groups: {
        task: string | null;
        usage: { input_tokens: number; output_tokens: number; cost_total: number };
      }[];
    };
    expect(summary.complete).toBe(true);
    // The model's tokens and, at the config's illustrative prices, their cost.
    const usage = summary.groups.find((g) => g.task === null)?.usage;
    expect(usage?.input_tokens).toBeGreaterThan(1000);
    expect(usage?.output_tokens).toBeGreaterThan(10);
    const { input_tokens = 0, output_tokens = 0 } = usage ?? {};
    expect(usage?.cost_total).toBeCloseTo((input_tokens * 3 + output_tokens * 15) / 1e6, 6);
    expect(summary.rows.map((x) => [x.agent, x.task, x.result, x.tests_passed])).toEqual([
      ['pi', 'js-slugify', 'PASS', true],
    ]);
    const run = summary.rows[0]?.run_dir as string;
    const report = JSON.parse(readFileSync(path.join(run, 'report.json'), 'utf8')) as {
      agent: { name: string; version: string; model: string };
    };
    expect(report.agent).toMatchObject({ name: 'pi', version: '0.73.1', model: 'scripted:trajectory.yaml' });
    // Four scripted turns answered, and the fix came from a shell command the real pi ran.
    const turns = readFileSync(path.join(run, 'evidence/model.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter((l) => JSON.parse(l).kind === 'turn');
    expect(turns).toHaveLength(4);
    const execs = readFileSync(path.join(run, 'evidence/syscalls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.kind === 'exec');
    expect(execs.some((e) => e.exe?.endsWith('/base64') || (e.argv ?? [])[0] === 'base64')).toBe(true);
    expect(readFileSync(path.join(run, 'repo/src/slugify.js'), 'utf8')).toBe(
      readFileSync(path.join(BENCHMARKS, 'js-slugify/solution/src/slugify.js'), 'utf8'),
    );
  });
});
