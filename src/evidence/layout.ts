import path from 'node:path';

/**
 * Where each artifact of a run lives, relative to the run directory. One place to change. The
 * reports (report.json, graph.json, …) are named by their reporters in src/reports/reporters.ts.
 */
export const RUN_FILES = {
  config: 'config.json',
  repo: 'repo',
  harnessGit: 'baseline.git',
  /** The template repository's history up to its HEAD, for the grading copies (never the workspace's .git). */
  history: 'history.git',
  home: 'home',
  /** setup.dependencies' installers' HOME: empty, never the canary HOME; gone when setup ends. */
  setupHome: 'setup-home',
  task: 'task/prompt.md',
  workspace: 'evidence/workspace.json',
  agent: 'evidence/agent.json',
  run: 'evidence/run.json',
  commands: 'evidence/commands.jsonl',
  tests: 'evidence/tests.json',
  diff: 'evidence/diff.json',
  patch: 'evidence/diff.patch',
  syscalls: 'evidence/syscalls.jsonl',
  testSyscalls: 'evidence/test-syscalls.jsonl',
  network: 'evidence/network.jsonl',
  timeline: 'evidence/timeline.jsonl',
  /** The live guard's alerts, one JSON line each as raised (guard/incident.json sums them up at the end). */
  liveAlerts: 'guard/alerts.jsonl',
  observation: 'evidence/observation.json',
  agentLog: 'evidence/agent.log',
  tracerScratch: 'evidence/tracer',
  canaries: 'evidence/canaries.json',
  protectedState: 'evidence/protected-state.json',
  rules: 'evidence/rules.json',
  model: 'evidence/model.jsonl',
  /** A model replay's source: the recorded run, its verdict and its agent requests. */
  replay: 'evidence/replay.json',
  skills: 'evidence/skills.json',
  setup: 'evidence/setup.json',
  net: 'net',
} as const;

export type RunFile = keyof typeof RUN_FILES;

export function runPath(runDir: string, file: RunFile): string {
  return path.join(runDir, RUN_FILES[file]);
}
