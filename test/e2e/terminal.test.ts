import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './exec-cli.js';

const ESC = '\u001b';
const main = path.resolve('dist/cli/main.js');
const config = path.resolve('benchmarks/js-slugify/config.yaml');
const work = tempDir('ag-colour-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A failing run's console: through `script` (a real terminal) or a pipe. */
function run(extra: Record<string, string>, terminal: boolean) {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    TERM: 'xterm',
    ...extra,
  };
  const cli = ['node', main, 'run', config, '--agent', 'mock-noop', '--tracer', 'off', '--output-dir', work];
  return terminal
    ? spawnSync('script', ['-qec', cli.join(' '), '/dev/null'], { env, encoding: 'utf8', cwd: work })
    : spawnSync(cli[0] as string, cli.slice(1), { env, encoding: 'utf8', cwd: work });
}

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('a person at a terminal', () => {
  it('colours the verdict on a real terminal, not with NO_COLOR and not through a pipe', () => {
    const tty = run({}, true);
    expect(tty.stdout).toContain(`${ESC}[31mFAIL${ESC}[0m  score`);
    // NO_COLOR turns colour off; a progress line may still be drawn and erased.
    expect(run({ NO_COLOR: '1' }, true).stdout).not.toMatch(new RegExp(`${ESC}\\[\\d+m`));
    const piped = run({}, false);
    expect(piped.stdout).toMatch(/^FAIL {2}score/m);
    expect(piped.stdout + piped.stderr).not.toContain(ESC);
  }, 120_000);

  it('sees the step a slow run is in, with its time, and nothing of it through a pipe', () => {
    const task = path.join(work, 'slow');
    cpSync(path.dirname(config), task, { recursive: true });
    writeFileSync(
      path.join(task, 'config.yaml'),
      `name: slow\ntask: { prompt: wait }\nrepo: repo\ntest_command: [node, --test, test/]\n` +
        `agent_command: [sh, -c, 'sleep 4']\nallowed_paths: ["src/**"]\n`,
    );
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      TERM: 'xterm',
    };
    const cli = [
      'node',
      main,
      'run',
      path.join(task, 'config.yaml'),
      '--tracer',
      'off',
      '--output-dir',
      work,
    ];
    const tty = spawnSync('script', ['-qec', cli.join(' '), '/dev/null'], {
      env,
      encoding: 'utf8',
      cwd: work,
    });
    expect(tty.stdout).toMatch(/\[the agent is running 0:0[2-5] · run 0:\d\d\]/);
    // The line is erased before the summary: the verdict starts a clean line.
    expect(tty.stdout).toMatch(new RegExp(`\r${ESC}\\[2K(${ESC}\\[\\d+m)?FAIL`));
    const piped = spawnSync(cli[0] as string, cli.slice(1), { env, encoding: 'utf8', cwd: work });
    expect(piped.stderr).not.toContain('the agent is running');
  }, 120_000);
});

/** The CLI at a real terminal (`script`) and through a pipe, with the same arguments. */
function both(args: string[], cwd: string, extra: Record<string, string> = {}) {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    TERM: 'xterm',
    ...extra,
  };
  const cli = ['node', main, ...args].map((a) => `'${a}'`).join(' ');
  const tty = spawnSync('script', ['-qec', cli, '/dev/null'], { env, encoding: 'utf8', cwd });
  const piped = spawnSync('node', [main, ...args], { env, encoding: 'utf8', cwd });
  return { tty: tty.stdout, piped: `${piped.stdout}${piped.stderr}`, code: piped.status };
}

/** Progress lines are `[step m:ss · command m:ss]`, each drawn over the last. */
const steps = (text: string, command: string) =>
  text
    .split('\r')
    .map((l) => l.replace(`${ESC}[2K`, ''))
    .filter((l) => l.endsWith(']') && l.includes(` · ${command} `));

describe.skipIf(!hasScript)('the progress line of a long command', () => {
  it('names the step of pack build and pack verify at a terminal, and nothing through a pipe', () => {
    const pack = path.join(work, 'all.zip');
    const build = both(['pack', 'build', '-o', pack], work);
    expect(build.code, build.piped).toBe(0);
    const built = steps(build.tty, 'pack build');
    // Which steps show depends on how long each lasts here (collecting the files may end before
    // the first 2 s); every line shown has the one shape, and the last, long step is named.
    expect(built.length).toBeGreaterThan(0);
    for (const l of built) expect(l).toMatch(/^\[[a-z][^\]]*: .+ \d:\d\d · pack build \d:\d\d\]$/);
    expect(built.some((l) => l.startsWith('[verifying the written pack: '))).toBe(true);
    // The line is erased before the result: it starts a clean line.
    expect(build.tty).toMatch(new RegExp(`\r${ESC}\\[2K${pack.replaceAll('.', '\\.')}: benchmarks@`));
    expect(build.piped).not.toContain(ESC);
    const verify = both(['pack', 'verify', pack, '--allow-below-floor'], work);
    expect(verify.code, verify.piped).toBe(0);
    expect(
      steps(verify.tty, 'pack verify').some((l) => l.startsWith('[checking the benchmarks it holds: ')),
    ).toBe(true);
    expect(verify.piped).not.toContain(ESC);
    expect(
      steps(both(['pack', 'verify', pack, '--allow-below-floor', '--json'], work).tty, 'pack verify'),
    ).toEqual([]);
  }, 300_000);

  it("names doctor's trial run and init --check's run while they last", () => {
    const doctor = both(['doctor'], work);
    expect(
      steps(doctor.tty, 'doctor').some((l) => l.startsWith('[a trial run (js-slugify, mock-solve) ')),
      doctor.tty,
    ).toBe(true);
    expect(doctor.piped).not.toContain('[a trial run');
    expect(steps(both(['doctor', '--json'], work).tty, 'doctor')).toEqual([]);

    const repo = path.join(work, 'slow-tests');
    mkdirSync(repo);
    writeFileSync(
      path.join(repo, 'package.json'),
      '{"name":"slow","version":"1.0.0","scripts":{"test":"sleep 3"}}\n',
    );
    const init = both(['init', repo], work);
    expect(
      steps(init.tty, 'run').some((l) => /^\[the tests are running 0:0[1-9] · run \d:\d\d\]$/.test(l)),
      init.tty,
    ).toBe(true);
  }, 300_000);

  const cache =
    process.env.AGENTGUARD_AGENT_CACHE ?? path.join(process.env.HOME ?? '/root', '.cache/agentguard/agents');
  const codex = existsSync(path.join(cache, 'codex/node_modules/.bin/codex'));
  if (!codex)
    console.warn("agents verify's progress check skipped: needs scripts/install-test-agents.sh codex");
  it.skipIf(!codex)(
    'names the step agents verify is in once it has lasted two seconds',
    () => {
      const env = { AGENTGUARD_AGENT_CACHE: cache };
      const r = both(['agents', 'verify', 'codex'], work, env);
      const ms = Number(/verified offline \((\d+) ms\)/.exec(r.tty)?.[1] ?? Number.NaN);
      expect(ms, r.tty).toBeGreaterThan(0);
      // The smoke task alone takes about two seconds: the line is owed only when it took longer.
      const drawn = steps(r.tty, 'agents verify codex');
      if (ms >= 2500) expect(drawn.some((l) => l.startsWith('[codex is running the smoke task '))).toBe(true);
      else console.warn(`agents verify took ${ms} ms: too quick for a progress line to be owed`);
      expect(
        steps(both(['agents', 'verify', 'codex', '--json'], work, env).tty, 'agents verify codex'),
      ).toEqual([]);
    },
    300_000,
  );
});
