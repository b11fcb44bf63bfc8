import type { EvidenceBundle } from '../../analysis/evidence-bundle.js';

/** One command line seen in the evidence, with where it was seen. */
export type CommandSighting = {
  argv: string[];
  /** What a person is shown (harness commands hide the prompt and secrets). */
  display: string;
  /** "harness command agent-1 (agent)" or "syscall seq 12, pid 345". */
  source: string;
  blocked: boolean;
  /** Facts about the sighting that change how far to trust it (exec failed, argv cut). */
  notes: string[];
};

/**
 * Every command in the run: those the harness started, then every exec the tracer saw (the agent's
 * own subprocesses, which is where unsafe commands actually show up).
 */
export function commandSightings(bundle: EvidenceBundle): CommandSighting[] {
  const sightings: CommandSighting[] = [];
  // The tracer also sees the exec of a process the harness started; count that one once.
  const harnessTexts = new Map<string, number>();
  for (const cmd of bundle.commands) {
    // The task prompt is the benchmark author's text handed to the agent, not something the agent
    // ran; a prompt that says "never use sudo" must not make the run look unsafe.
    const argv = cmd.argv.map((a) => (a === bundle.config.prompt && a !== '' ? '{task_prompt}' : a));
    const claimed = cmd.role === 'agent-log';
    sightings.push({
      argv,
      display: cmd.display_argv.join(' '),
      source: claimed
        ? `the agent's log ${cmd.log_source ?? cmd.id}`
        : `harness command ${cmd.id} (${cmd.role})`,
      blocked: cmd.blocked,
      notes: claimed ? ['claimed by the log, not observed'] : cmd.blocked ? ['blocked by policy'] : [],
    });
    // A logged command ran on the agent's machine: no exec here will repeat it.
    if (claimed) continue;
    const text = cmd.argv.join(' ');
    harnessTexts.set(text, (harnessTexts.get(text) ?? 0) + 1);
  }
  for (const event of bundle.syscalls) {
    if (event.kind !== 'exec') continue;
    const argv = event.argv && event.argv.length > 0 ? event.argv : [event.path ?? event.exe];
    const text = argv.join(' ');
    const pending = harnessTexts.get(text) ?? 0;
    if (pending > 0) {
      harnessTexts.set(text, pending - 1);
      continue;
    }
    const notes: string[] = [];
    if (event.result !== undefined && event.result < 0) notes.push(`exec failed (${event.result})`);
    if (event.truncated) notes.push('argv cut by the tracer');
    sightings.push({
      argv,
      display: text,
      source: `syscall seq ${event.seq}, pid ${event.pid}`,
      blocked: false,
      notes,
    });
  }
  return sightings;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish']);
/** Shell options that take the next argument as their value, so it is not the script. */
const OPTIONS_WITH_VALUE = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

/**
 * The script of `sh -c "<script>"`, `bash -lc ...`, `env X=1 bash -c ...` or `busybox sh -c ...`.
 * Matching patterns against the script on its own lets an anchored pattern (`^sudo\b`) catch a
 * command that a shell wrapper would otherwise hide behind `bash -c`.
 */
export function shellScript(argv: readonly string[]): string | null {
  let rest = [...argv];
  const program = () => (rest[0] ?? '').split('/').pop()?.replace(/^-/, '') ?? '';
  if (program() === 'env') {
    rest = rest.slice(1);
    while (rest[0] !== undefined && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0]) || rest[0].startsWith('-'))) {
      rest = rest.slice(rest[0] === '-u' ? 2 : 1);
    }
  }
  if (program() === 'busybox') rest = rest.slice(1);
  if (!SHELLS.has(program())) return null;
  for (let i = 1; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (arg === '--' || !/^[-+]/.test(arg)) return null;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) return rest[i + 1] ?? null;
    if (OPTIONS_WITH_VALUE.has(arg)) i++;
  }
  return null;
}
