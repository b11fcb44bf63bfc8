import { SetupError } from '../errors.js';

/** Points in a run where a test can make setup fail or deliver a signal. */
export const SETUP_STEPS = [
  'history',
  'prepare',
  'model-server',
  'proxy',
  'dns',
  'sandbox',
  'tracer',
  'agent',
  'tests',
  // After the run, with the history index open for its row.
  'record',
] as const;
export type SetupStep = (typeof SETUP_STEPS)[number];

/** The variable the test hook reads. Never part of the config: users have no reason to set it. */
export const FAULT_ENV = 'AGENTGUARD_TEST_FAULT';

/**
 * The test seam for the run's lifecycle: `fail:STEP` makes that setup step (history … tracer)
 * throw a SetupError, and
 * `signal:SIGNAL:STEP` sends the harness that signal when the step is reached (the agent and tests
 * steps: once their command runs), and `block:MS:STEP` holds the harness's thread for MS
 * milliseconds there, as a slow synchronous step (git on a large tree, a loaded machine) does. Returns undefined when the variable is unset, so normal runs
 * pay nothing.
 */
export function faultFromEnv(env: NodeJS.ProcessEnv): ((step: SetupStep) => void) | undefined {
  const spec = env[FAULT_ENV];
  if (!spec) return undefined;
  const parts = spec.split(':');
  const step = parts.at(-1) as SetupStep;
  if (!SETUP_STEPS.includes(step)) return undefined;
  // The agent and the tests are not setup: their failures are evidence, so only signals apply.
  if (parts[0] === 'fail' && parts.length === 2 && step !== 'agent' && step !== 'tests') {
    return (at) => {
      if (at === step) throw new SetupError(`injected failure at step '${step}' (${FAULT_ENV})`);
    };
  }
  if (parts[0] === 'signal' && parts.length === 3) {
    const signal = parts[1] as NodeJS.Signals;
    let sent = false;
    return (at) => {
      if (at !== step || sent) return;
      sent = true;
      process.kill(process.pid, signal);
    };
  }
  if (parts[0] === 'block' && parts.length === 3 && /^\d+$/.test(parts[1] ?? '')) {
    const ms = Number(parts[1]);
    return (at) => {
      if (at === step) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    };
  }
  return undefined;
}
