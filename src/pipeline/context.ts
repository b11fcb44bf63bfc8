import type { TimelineEvent } from '../evidence/types.js';
import type { SetupStep } from './faults.js';

/** What the orchestrator receives instead of reaching for globals. */
export type RunContext = {
  /** The `.agentguard` folder: runs, history.db and the rest go under it. */
  outputDir: string;
  /** Environment the agent may take allowed variables from. */
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /** Progress lines for people (stderr in the CLI), never the machine-readable output. */
  log: (line: string) => void;
  /** Record the run in history.db (off in some tests). */
  history: boolean;
  /** Ends every run in progress (the CLI's SIGINT/SIGTERM/SIGHUP); its reason is a StopReason. */
  signal?: AbortSignal;
  /** Each timeline event of a run as it happens (the CLI's progress line); unset means unheard. */
  progress?: (e: TimelineEvent) => void;
  /** Test seam: called at each setup step (see faults.ts); unset outside tests. */
  fault?: (step: SetupStep) => void;
};
