import { readdirSync, readFileSync } from 'node:fs';

type Proc = { pid: number; state: string; argv: string[]; children: number[] };

function readProc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may contain anything.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const children: number[] = [];
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
      for (const child of text.split(' ')) if (child.trim()) children.push(Number(child));
    }
    return { pid, state, argv, children };
  } catch {
    return null;
  }
}

/** The process and its descendants, as /proc shows them now. */
export function processTree(root: number): Proc[] {
  const seen = new Map<number, Proc>();
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    const proc = readProc(pid);
    if (!proc) continue;
    seen.set(pid, proc);
    queue.push(...proc.children);
  }
  return [...seen.values()];
}

/**
 * A harness wrapper (the sandbox bridge) that someone stopped with SIGSTOP, and whose child has
 * already exited, can never reap that child and exit: the run would wait for its timeout and record
 * one the agent never had. Such a wrapper is sent SIGCONT so it reports the agent's real exit.
 * Only wrappers, and only once their child is gone: the agent's own processes are never touched.
 */
export function resumeStuckWrappers(root: number, isWrapper: (argv: string[]) => boolean): number[] {
  const tree = processTree(root);
  const byPid = new Map(tree.map((p) => [p.pid, p]));
  const resumed: number[] = [];
  for (const proc of tree) {
    if (proc.state !== 'T' && proc.state !== 't') continue;
    if (!isWrapper(proc.argv)) continue;
    const liveChild = proc.children.some((c) => {
      const state = byPid.get(c)?.state;
      return state !== undefined && state !== 'Z' && state !== 'X';
    });
    if (liveChild) continue;
    try {
      process.kill(proc.pid, 'SIGCONT');
      resumed.push(proc.pid);
    } catch {
      // gone meanwhile
    }
  }
  return resumed;
}
