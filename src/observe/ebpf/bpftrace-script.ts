import { chunkedString, indent, probe, walk } from './bpftrace-snippets.js';
import { COMPAT_MAPS, compatBlocks } from './compat-probes.js';
import { IO_URING_MAPS, ioUringBlocks } from './io-uring-probes.js';
import type { MechanismTracepoints } from './mechanism-tracepoints.js';
import { netBlocks } from './net-probes.js';
import { EXEC_MAPS, execBlocks, processBlocks } from './process-probes.js';
import {
  AT_FDCWD,
  BPFTRACE_MAX_CHUNKS,
  FLAG_MOVES_DIRECTORIES,
  NO_WALK,
  REC_CALL,
  REC_EXIT,
  REC_FORK,
  REC_NET,
  REC_READY,
  REC_TICK,
  SLOT_PATH,
  SLOT_PATH2,
  SLOT_WALK1,
  SLOT_WALK2,
  TICK_MS,
  WALK_NONE,
} from './record-format.js';
import { REFUSED_MAPS, refusedBlocks } from './refused-probes.js';
import { callCode, type PathArg, TRACED_CALLS, type TracedCall } from './syscall-table.js';

export type ScriptOptions = {
  /** The run's cgroup v2 directory (absolute). */
  cgroupPath: string;
  /** Its cgroup id (the directory's inode), used when the path cannot be a bpftrace string literal. */
  cgroupId: bigint;
  /** Syscall tracepoints present in tracefs, e.g. `sys_enter_openat`. */
  syscallTracepoints: ReadonlySet<string>;
  /** sched_process_exit carries `group_dead` (newer kernels); otherwise the leader's exit stands for the process. */
  exitHasGroupDead: boolean;
  /** Tracepoints for 32-bit calls and io_uring operations; absent means none (their records are left out). */
  mechanisms?: MechanismTracepoints;
  /**
   * bpftrace's perf buffers wake it once per this many records (wakeup-batching.ts) instead of
   * once per record: the script must then flush what would otherwise wait.
   */
  wakeupEvents?: number;
};

export type GeneratedScript = {
  script: string;
  /** Traced calls left out because this kernel has no tracepoint for them. */
  missing: string[];
};

const SAFE_PATH = /^[A-Za-z0-9_./-]+$/;
const PATH_MAPS = ['@sc', '@p1', '@d1', '@p2', '@d2', '@fl'];
const ALL_MAPS = [...PATH_MAPS, ...EXEC_MAPS, '@sa', '@sac', '@cf', '@fk', '@wc', '@gen', '@dirty'];

/**
 * Generates the bpftrace program for one run. Every probe is filtered in the kernel on the run's
 * cgroup; paths are read at sys_exit (at sys_enter the user page may not be resident yet) and
 * relative ones travel with the directory they are relative to, walked in the kernel.
 *
 * The BPF stack is 512 bytes and each printed string costs about twice BPFTRACE_STRLEN, so every
 * record carries at most one string and the probes keep few variables.
 */
export function generateScript(options: ScriptOptions): GeneratedScript {
  const inCgroup = SAFE_PATH.test(options.cgroupPath)
    ? `cgroup == cgroupid("${options.cgroupPath}")`
    : `cgroup == ${options.cgroupId}`;
  const has = (name: string) =>
    options.syscallTracepoints.has(`sys_enter_${name}`) && options.syscallTracepoints.has(`sys_exit_${name}`);
  const missing: string[] = [];
  // @gen is declared first: bpftrace types a map where it first appears.
  const batch = options.wakeupEvents ?? 1;
  // READY is followed by a flush, or with batched wakeups it would wait for company.
  const ready = `@gen[0] = 0;\n@dirty[0] = 0;\nprint((${REC_READY}, nsecs));${batch > 1 ? `\n${flush(batch)}` : ''}`;
  const blocks: string[] = [probe('BEGIN', null, ready)];

  for (const name of ['execve', 'execveat']) {
    if (!has(name)) missing.push(name);
  }
  blocks.push(...execBlocks(inCgroup, has));

  const calls = TRACED_CALLS.map((call, index) => ({ call, code: callCode(index) })).filter(({ call }) => {
    if (has(call.tracepoint)) return true;
    missing.push(call.name);
    return false;
  });
  for (const { call, code } of calls) {
    const when = call.when
      ? ` && (${call.when.values.map((value) => `args->${call.when?.field} == ${value}`).join(' || ')})`
      : '';
    blocks.push(
      probe(`tracepoint:syscalls:sys_enter_${call.tracepoint}`, `${inCgroup}${when}`, enterBody(call, code)),
    );
  }
  // One exit probe per shape (no path, one, two, a descriptor's file): a probe holding code for two
  // paths would not fit the stack of the common one-path calls.
  for (const shape of [0, 1, 2, 'fd'] as const) {
    const exits = calls
      .filter(({ call }) => exitShape(call) === shape)
      .map(({ call }) => `tracepoint:syscalls:sys_exit_${call.tracepoint}`);
    if (exits.length > 0)
      blocks.push(probe(exits.join(',\n'), `${inCgroup} && @sc[tid] != 0`, pathCallExitBody(shape)));
  }

  blocks.push(...netBlocks(inCgroup, has, missing));
  // Maps that only exist when their probes do: END may clear only declared maps.
  const maps = [...ALL_MAPS];
  if (options.mechanisms?.compatSyscalls) {
    blocks.push(...compatBlocks(inCgroup, pathCallExitBody));
    maps.push(...COMPAT_MAPS);
    blocks.push(...refusedBlocks(inCgroup));
    maps.push(...REFUSED_MAPS);
  } else missing.push('32-bit calls (raw_syscalls)', 'calls the seccomp filter refused (raw_syscalls)');
  if (options.mechanisms?.ioUring) {
    blocks.push(...ioUringBlocks(inCgroup));
    maps.push(...IO_URING_MAPS);
  } else missing.push('io_uring operations (io_uring:io_uring_submit_req)');
  blocks.push(...processBlocks(inCgroup, has, options.exitHasGroupDead));
  // A heartbeat: once a tick later than some moment has been read, so has everything before it.
  if (batch > 1) blocks.push(...flushProbes(batch));
  else blocks.push(probe(`interval:ms:${TICK_MS}`, null, `print((${REC_TICK}, nsecs));`));
  blocks.push(probe('END', null, maps.map((map) => `clear(${map});`).join('\n')));
  return { script: markDirty(`${blocks.join('\n\n')}\n`), missing };
}

/**
 * With batched wakeups a record is read once `batch` records are in its CPU's buffer. Sending
 * `batch` ticks in a row always crosses such a boundary, so: the heartbeat sends a full batch, and a
 * CPU that wrote an event since its last flush (@dirty) sends one when it goes idle (it writes
 * nothing more until it wakes) and, while busy, at the latest every TICK_MS. Hence every record is
 * read within about TICK_MS, and a tick read at t still means everything before t - TICK_MS is in.
 */
function flushProbes(batch: number): string[] {
  return [
    probe(`interval:ms:${TICK_MS}`, null, flush(batch)),
    probe(`profile:hz:${Math.round(1000 / TICK_MS)}`, '@dirty[cpu] == 1', flush(batch)),
    probe('tracepoint:sched:sched_switch', 'args->next_pid == 0 && @dirty[cpu] == 1', flush(batch)),
  ];
}

function flush(batch: number): string {
  return [
    '@dirty[cpu] = 0;',
    '$f = 0;',
    `while ($f < ${batch}) {`,
    `  print((${REC_TICK}, nsecs));`,
    '  $f++;',
    '}',
  ].join('\n');
}

/** Every event's own record (CALL, NET, FORK, EXIT; its PARTs come before it) marks its CPU as having unread events. */
function markDirty(script: string): string {
  return script.replace(
    new RegExp(`^(\\s*)print\\(\\((${[REC_CALL, REC_NET, REC_FORK, REC_EXIT].join('|')}),`, 'gm'),
    '$1@dirty[cpu] = 1;\n$1print(($2,',
  );
}

function exitShape(call: TracedCall): 0 | 1 | 2 | 'fd' {
  if (call.fdPath) return 'fd';
  return call.path2 ? 2 : call.path ? 1 : 0;
}

function enterBody(call: TracedCall, code: number): string {
  return [
    `@sc[tid] = ${code};`,
    // A descriptor whose own file is the path (fchmod) is walked at exit as a dirfd would be.
    ...(call.fdPath
      ? ['@p1[tid] = 0;', `@d1[tid] = (int64)(int32)args->${call.fdPath};`]
      : pathEnter(call.path, '@p1', '@d1')),
    ...pathEnter(call.path2, '@p2', '@d2'),
    `@fl[tid] = ${call.flags ? `(int64)${call.flags}` : call.movesDirectories ? String(FLAG_MOVES_DIRECTORIES) : '0'};`,
  ].join('\n');
}

// bpftrace 0.17 zero-extends `int` tracepoint fields: AT_FDCWD would become 4294967196 without the
// (int32) cast.
function pathEnter(arg: PathArg | undefined, pointerMap: string, dirfdMap: string): string[] {
  if (!arg) return [`${pointerMap}[tid] = 0;`, `${dirfdMap}[tid] = ${NO_WALK};`];
  const dirfd = !arg.resolve
    ? String(NO_WALK)
    : arg.dirfd
      ? `(int64)(int32)args->${arg.dirfd}`
      : String(AT_FDCWD);
  return [`${pointerMap}[tid] = (uint64)args->${arg.field};`, `${dirfdMap}[tid] = ${dirfd};`];
}

/** The exit of a path-taking or privilege call: the strings, the walks, then the CALL record. */
function pathCallExitBody(shape: 0 | 1 | 2 | 'fd'): string {
  const paths = shape === 'fd' ? 0 : shape;
  return [
    '$t = nsecs;',
    `$w1 = ${WALK_NONE};`,
    `$w2 = ${WALK_NONE};`,
    '$s1 = 0;',
    '$s2 = 0;',
    ...(paths >= 1 ? pathExit('@p1', '@d1', SLOT_PATH, SLOT_WALK1, '$w1', '$s1', false) : []),
    ...(paths >= 2 ? pathExit('@p2', '@d2', SLOT_PATH2, SLOT_WALK2, '$w2', '$s2') : []),
    // The descriptor's file itself, walked from its dentry (no walk for a negative fd).
    ...(shape === 'fd'
      ? ['$dfd = @d1[tid];', 'if ($dfd >= 0) {', indent(walk('$dfd', SLOT_WALK1, '$w1', '$s1')), '}']
      : []),
    // The first path's first chunk rides in the CALL itself (see record-format.ts).
    `print((${REC_CALL}, tid, $t, pid, curtask->real_parent->tgid, @sc[tid], args->ret, @fl[tid], $w1, $w2, $s1, $s2, ${paths >= 1 ? 'str(@p1[tid])' : 'comm'}));`,
    // Directory paths may have changed: remembered walks are stale.
    `if (@fl[tid] == ${FLAG_MOVES_DIRECTORIES}) {`,
    '  @gen[0] = @gen[0] + 1;',
    '}',
    ...PATH_MAPS.map((map) => `delete(${map}[tid]);`),
  ].join('\n');
}

function pathExit(
  pointerMap: string,
  dirfdMap: string,
  slot: number,
  walkSlot: number,
  result: string,
  dirId: string,
  firstChunk = true,
): string[] {
  return [
    `$p = ${pointerMap}[tid];`,
    'if ($p != 0) {',
    indent(
      [
        chunkedString('$p', slot, BPFTRACE_MAX_CHUNKS, true, firstChunk),
        `$dfd = ${dirfdMap}[tid];`,
        // 47 is '/': only a relative path needs its base directory.
        `if ($dfd != ${NO_WALK} && *uptr((uint8 *)$p) != 47) {`,
        indent(walk('$dfd', walkSlot, result, dirId)),
        '}',
      ].join('\n'),
    ),
    '}',
  ];
}
