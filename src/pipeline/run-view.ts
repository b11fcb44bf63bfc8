import { type Dirent, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AgentPlan } from '../agents/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { packageRoot } from '../package-root.js';
import { SYSTEM_VIEW } from '../sandbox/system-view.js';
import { graderOnlyMatcher } from './grading.js';

/**
 * What of the host a run shows its agent beyond the system folders and its own workspace, HOME and
 * task folder: agentguard's package and node (the harness's bridge and the mock agents run from
 * them: PACKAGE_SHOWN, not its benchmarks), the config's folder, the agent's program folder and install (its plan's `visible`), and
 * every path the config names (ResolvedConfig.mounts). Withheld even inside those: the task's solution and the template's
 * grader files, unless the config or the agent's plan names them itself.
 */
export type RunView = {
  /** Shown read-only at their own paths. */
  visible: string[];
  /** Shown writable at their own paths. */
  writable: string[];
  /** Masked wherever a shown folder holds them (SandboxContext.withheld). */
  withheld: string[];
  /** The agent is shown the task's reference solution (named by the config, or a mock agent applying it). */
  solutionShown: boolean;
};

/** The grader files of a template found by walking it at most this far: a task template is small. */
const MAX_TEMPLATE_ENTRIES = 50_000;

export function runView(cfg: ResolvedConfig, plan: AgentPlan): RunView {
  // The config's folder is the run's own: shown, its solution and the template's grader files withheld.
  const visible = [...packageShown(), cfg.config_dir, path.dirname(path.dirname(process.execPath))];
  const program = plan.spec.argv[0] ?? '';
  if (path.isAbsolute(program)) visible.push(path.dirname(program));
  visible.push(...(plan.visible ?? []), ...cfg.mounts.filter((m) => !m.writable).map((m) => m.path));
  const writable = cfg.mounts.filter((m) => m.writable).map((m) => m.path);
  const withheld = [...(cfg.solution ? [cfg.solution] : []), ...graderFiles(cfg)];
  const solution = cfg.solution;
  const solutionShown =
    solution !== undefined && [...visible, ...writable].some((p) => isInside(p, solution));
  return { visible: [...new Set(visible)], writable: [...new Set(writable)], withheld, solutionShown };
}

/**
 * What of agentguard's own package a run shows: what runs from it in the sandbox (the bridge and the
 * mock agents are plain modules under dist/, which need only node's own modules and package.json's
 * `type`), not the whole package: its benchmarks/ hold every shipped task's solution, which an agent
 * on one task must not read from a sibling.
 */
export const PACKAGE_SHOWN = ['package.json', 'dist', 'node_modules'] as const;

function packageShown(): string[] {
  return PACKAGE_SHOWN.map((name) => path.join(packageRoot(), name));
}

/** The template's grader-only files on the host, and its own git folder (their history) when it has any. */
function graderFiles(cfg: ResolvedConfig): string[] {
  const grader = graderOnlyMatcher(cfg);
  if (!grader) return [];
  const found: string[] = [];
  let seen = 0;
  const walk = (rel: string) => {
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(path.join(cfg.repo, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > MAX_TEMPLATE_ENTRIES) return;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (child === '.git') {
        found.push(path.join(cfg.repo, child));
        continue;
      }
      if (grader(child)) found.push(path.join(cfg.repo, child));
      else if (e.isDirectory()) walk(child);
    }
  };
  walk('');
  return found;
}

/**
 * Stop before the agent starts when the run user could not read a shown path: bwrap makes the
 * folders above a shown path itself (0755), so only the path's own mode counts, and the modes of
 * the folders between it and a shown folder that holds it. The agent never runs as the harness's
 * user because of a folder's mode: the run stops with the folder and the fix (exit 2).
 */
export function checkRunUserReach(view: RunView, cfg: Pick<ResolvedConfig, 'config_path' | 'mounts'>): void {
  const shown = [...SYSTEM_VIEW, ...view.visible, ...view.writable];
  const issues = new Map<string, ConfigIssue>();
  const field = (p: string) => cfg.mounts.find((m) => m.path === p)?.field ?? 'config_dir';
  const refuse = (at: string, p: string, what: string, chmod: string) =>
    issues.set(at, {
      file: cfg.config_path,
      field: field(p),
      message: `the agent runs as a user of its own, which cannot ${what} ${at} (mode ${modeText(at)})${at === p ? '' : `, above ${p}`}, a path the run shows it`,
      fix: `let other users in (chmod ${chmod} ${at}), or run from a folder others can read`,
    });
  const judge = (p: string, writable: boolean) => {
    const mode = modeOf(p);
    if (mode === null) return;
    const need = (mode.dir ? 0o005 : 0o004) | (writable ? 0o002 : 0);
    if ((mode.bits & need) !== need)
      refuse(p, p, writable ? 'write' : 'read', `o+${mode.dir ? 'rx' : 'r'}${writable ? 'w' : ''}`);
    const holder = shown.filter((s) => s !== p && isInside(p, s)).sort((a, b) => b.length - a.length)[0];
    if (holder === undefined) return;
    for (let dir = path.dirname(p); dir !== path.resolve(holder) && dir !== '/'; dir = path.dirname(dir)) {
      const up = modeOf(dir);
      if (up && (up.bits & 0o001) === 0) refuse(dir, p, 'enter', 'o+x');
    }
  };
  for (const p of view.visible) judge(p, false);
  for (const p of view.writable) judge(p, true);
  if (issues.size > 0) throw new ConfigError([...issues.values()]);
}

function modeText(p: string): string {
  return ((modeOf(p)?.bits ?? 0) & 0o777).toString(8);
}

function modeOf(p: string): { bits: number; dir: boolean } | null {
  try {
    const st = statSync(p);
    return { bits: st.mode, dir: st.isDirectory() };
  } catch {
    return null;
  }
}

function isInside(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
