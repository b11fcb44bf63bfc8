import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packageRoot } from '../package-root.js';
import { type ActionSource, actionSource, LOCAL_ACTION_PATH } from './action-source.js';
import { renderWorkflow } from './render-ci.js';

type Step = { uses?: string; run?: string; if?: string; with?: Record<string, string> };

const work = mkdtempSync(path.join(tmpdir(), 'ag-render-ci-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The inputs agentguard's own action.yml declares. */
const inputs = Object.keys(
  (parse(readFileSync(path.join(packageRoot(), 'action.yml'), 'utf8')) as { inputs: object }).inputs,
);

/** The workflow as GitHub reads it, and the step that runs agentguard's action. */
function workflow(action: ActionSource): { steps: Step[]; agentguard: Step } {
  const doc = parse(renderWorkflow({ action, configFile: '.agentguard.yaml' })) as {
    on: string;
    jobs: { judge: { steps: Step[] } };
  };
  expect(doc.on).toBe('pull_request');
  const steps = doc.jobs.judge.steps;
  const agentguard = steps.find((s) => s.with?.config !== undefined) as Step;
  // Every input it passes is one action.yml has.
  expect(Object.keys(agentguard.with ?? {}).every((k) => inputs.includes(k))).toBe(true);
  return { steps, agentguard };
}

function gitRepo(name: string, origin: string | null): string {
  const dir = path.join(work, name);
  mkdirSync(dir);
  const git = (...args: string[]) =>
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-C', dir, ...args], {
      encoding: 'utf8',
    });
  git('init', '-q');
  git('commit', '-q', '--allow-empty', '-m', 'x');
  if (origin !== null) git('remote', 'add', 'origin', origin);
  return dir;
}

describe("init --ci's workflow", () => {
  it('uses the ref given, and refuses one that is not an action reference', () => {
    const { agentguard } = workflow(actionSource('acme/agentguard@v1', work));
    expect(agentguard.uses).toBe('acme/agentguard@v1');
    for (const bad of ['your-org', 'acme/agentguard', 'acme/agentguard@v1 && x', './local', 'a/b@'])
      expect(() => actionSource(bad, work), bad).toThrow(/is not an action reference/);
  });

  it("pins agentguard's own GitHub origin at the commit it runs, in every spelling of the remote", () => {
    for (const [i, remote] of [
      'https://github.com/acme/agentguard.git',
      'https://github.com/acme/agentguard',
      'git@github.com:acme/agentguard.git',
      'ssh://git@github.com/acme/agentguard.git',
    ].entries()) {
      const dir = gitRepo(`origin-${i}`, remote);
      const head = spawnSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
      const source = actionSource(undefined, dir);
      expect(source).toEqual({
        kind: 'origin',
        ref: `acme/agentguard@${head}`,
        repository: 'acme/agentguard',
        commit: head,
      });
      expect(workflow(source).agentguard.uses).toBe(`acme/agentguard@${head}`);
    }
  });

  it('falls back to repository variables without a GitHub origin, checked out before the local action is used', () => {
    const noOrigin = gitRepo('no-origin', null);
    const elsewhere = gitRepo('elsewhere', 'https://gitlab.com/acme/agentguard.git');
    const inside = path.join(gitRepo('parent', 'https://github.com/acme/parent.git'), 'agentguard');
    mkdirSync(inside);
    const notGit = path.join(work, 'not-git');
    mkdirSync(notGit);
    for (const dir of [noOrigin, elsewhere, inside, notGit])
      expect(actionSource(undefined, dir)).toEqual({ kind: 'variables' });
    const { steps, agentguard } = workflow({ kind: 'variables' });
    expect(agentguard.uses).toBe(`./${LOCAL_ACTION_PATH}`);
    const at = steps.indexOf(agentguard);
    const checkout = steps.findIndex((s) => s.with?.path === LOCAL_ACTION_PATH);
    expect(checkout).toBeGreaterThan(0);
    expect(checkout).toBeLessThan(at);
    expect(steps[checkout]?.with?.repository).toBe(['${{', 'vars.AGENTGUARD_REPOSITORY', '}}'].join(' '));
    // The project's own checkout comes first: a later one would clean the action's folder away.
    expect(steps[0]?.uses).toBe('actions/checkout@v4');
    expect(steps[0]?.with?.path).toBeUndefined();
    // Unset variables stop the job with the message, before the checkout that would fail obscurely.
    const guard = steps.findIndex((s) => s.if?.includes('vars.AGENTGUARD_REPOSITORY'));
    expect(guard).toBeGreaterThan(0);
    expect(guard).toBeLessThan(checkout);
    expect(steps[guard]?.run).toContain('exit 1');
    // Nothing names a placeholder repository.
    expect(JSON.stringify(steps)).not.toMatch(/your-org|OWNER\/REPO@/);
  });
});
