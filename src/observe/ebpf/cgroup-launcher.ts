import type { SpawnSpec } from '../../exec/types.js';

/** argv[0] of the launcher shell (what `ps` shows until it execs the command). */
export const LAUNCHER_NAME = 'agentguard-cg';

/**
 * The launcher joins the cgroup before the command exists, so the command and every descendant are
 * in it from their first instruction. `echo 0` means "the writing process" to cgroup.procs, which
 * also holds inside a PID namespace. If joining fails the command is never started (fail closed).
 */
const SCRIPT = 'echo 0 > "$1/cgroup.procs" && shift && exec "$@"';

export function wrapInCgroup(spec: SpawnSpec, cgroupDir: string): SpawnSpec {
  return { ...spec, argv: ['/bin/sh', '-c', SCRIPT, LAUNCHER_NAME, cgroupDir, ...spec.argv] };
}
