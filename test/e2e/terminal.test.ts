import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
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
    expect(run({ NO_COLOR: '1' }, true).stdout).not.toContain(ESC);
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
