import { chunkedString, indent, partKey, probe, walk } from './bpftrace-snippets.js';
import {
  AT_FDCWD,
  BPFTRACE_MAX_CHUNKS,
  CLONE_THREAD,
  FORK_CALLS,
  KEY_TID,
  MAX_ARGV,
  REC_CALL,
  REC_EXIT,
  REC_FORK,
  REC_PART,
  SLOT_ARGV,
  SLOT_EXE_NAME,
  SLOT_PATH,
  SLOT_WALK1,
  WALK_NONE,
} from './record-format.js';
import { CODE_EXECVE, CODE_EXECVEAT } from './syscall-table.js';

export const EXEC_MAPS = ['@exsc', '@exfn', '@exac', '@exd'];

/** Probes for exec, successful and failed: filename, argv (at most MAX_ARGV) and cwd. */
export function execBlocks(inCgroup: string, has: (name: string) => boolean): string[] {
  const blocks: string[] = [];
  // argv is read at entry, from the caller's memory: that is the argv the caller asked for (strace's
  // view). After a successful exec the new stack holds the interpreter-rewritten argv of a #! script.
  const remember = (code: number, dirfd: string) =>
    [
      `@exsc[tid] = ${code};`,
      '@exfn[tid] = (uint64)args->filename;',
      `@exd[tid] = ${dirfd};`,
      '$t = nsecs;',
      '$argc = 0;',
      'if (args->argv != 0) {',
      `  while ($argc <= ${MAX_ARGV}) {`,
      '    if (*(uint64 *)uptr((uint64)args->argv + 8 * (uint64)$argc) == 0) {',
      '      break;',
      '    }',
      `    if ($argc < ${MAX_ARGV}) {`,
      `      print((${REC_PART}, tid * ${KEY_TID} + ${SLOT_ARGV} + (uint64)$argc, $t, str(uptr(*(uint64 *)uptr((uint64)args->argv + 8 * (uint64)$argc)))));`,
      '    }',
      '    $argc++;',
      '  }',
      '}',
      '@exac[tid] = $argc;',
    ].join('\n');
  if (has('execve')) {
    blocks.push(
      probe('tracepoint:syscalls:sys_enter_execve', inCgroup, remember(CODE_EXECVE, String(AT_FDCWD))),
    );
  }
  if (has('execveat')) {
    blocks.push(
      probe(
        'tracepoint:syscalls:sys_enter_execveat',
        inCgroup,
        remember(CODE_EXECVEAT, '(int64)(int32)args->fd'),
      ),
    );
  }
  // A successful exec: the kernel's copy of the filename, the argv counted at entry, and the cwd. After a non-leader thread's exec, tid is the
  // leader's; the maps are keyed by old_pid.
  blocks.push(
    probe(
      'tracepoint:sched:sched_process_exec',
      inCgroup,
      `$t = nsecs;
${chunkedString('args->filename', SLOT_PATH, BPFTRACE_MAX_CHUNKS, false)}
$argc = (int64)@exac[args->old_pid];
$w1 = ${WALK_NONE};
$s1 = 0;
${walk(String(AT_FDCWD), SLOT_WALK1, '$w1', '$s1')}
${memfdName()}
if (@exsc[args->old_pid] == ${CODE_EXECVEAT}) {
  print((${REC_CALL}, tid, $t, pid, curtask->real_parent->tgid, ${CODE_EXECVEAT}, 0, $argc, $w1, ${WALK_NONE}, $s1, 0, comm));
} else {
  print((${REC_CALL}, tid, $t, pid, curtask->real_parent->tgid, ${CODE_EXECVE}, 0, $argc, $w1, ${WALK_NONE}, $s1, 0, comm));
}
${EXEC_MAPS.map((map) => `delete(${map}[args->old_pid]);`).join('\n')}`,
    ),
  );
  const exits = ['execve', 'execveat'].filter(has).map((name) => `tracepoint:syscalls:sys_exit_${name}`);
  if (exits.length === 0) return blocks;
  // A failed exec: the caller's memory is intact, so its own filename can be read (argv was read at entry).
  blocks.push(
    probe(
      exits.join(',\n'),
      inCgroup,
      `if (@exsc[tid] != 0 && args->ret < 0) {
  $t = nsecs;
${indent(chunkedString('@exfn[tid]', SLOT_PATH, BPFTRACE_MAX_CHUNKS))}
  $argc = (int64)@exac[tid];
  $w1 = ${WALK_NONE};
  $s1 = 0;
${indent(walk(String(AT_FDCWD), SLOT_WALK1, '$w1', '$s1'))}
  print((${REC_CALL}, tid, $t, pid, curtask->real_parent->tgid, @exsc[tid], args->ret, $argc, $w1, @exd[tid], $s1, 0, comm));
}
${EXEC_MAPS.map((map) => `delete(${map}[tid]);`).join('\n')}`,
    ),
  );
  return blocks;
}

/**
 * A program run from a memfd (fexecve, or exec of /proc/self/fd/N) has only the descriptor's path
 * as its filename; its file's dentry holds the memfd's own name, `memfd:NAME`, which is sent instead.
 */
function memfdName(): string {
  // "memfd:" as the low six bytes of a little-endian word.
  const prefix = `0x${[...'memfd:']
    .reverse()
    .map((c) => c.charCodeAt(0).toString(16))
    .join('')}`;
  return `$xf = curtask->mm->exe_file;
if ($xf != 0) {
  $xn = $xf->f_path.dentry->d_name.name;
  if ((*(uint64 *)$xn & 0xffffffffffff) == ${prefix}) {
    print((${REC_PART}, ${partKey(SLOT_EXE_NAME)}, $t, str($xn)));
  }
}`;
}

/** Probes for the process tree: fork (processes only, not threads) and exit with its status. */
export function processBlocks(
  inCgroup: string,
  has: (name: string) => boolean,
  exitHasGroupDead: boolean,
): string[] {
  const blocks: string[] = [];
  // Thread creation also fires sched_process_fork; the clone flags tell threads from processes.
  const flags: Record<string, string> = {
    clone: 'args->clone_flags',
    clone3: '((struct clone_args *)args->uargs)->flags',
    fork: '0',
    vfork: '0',
  };
  const exits: string[] = [];
  for (const [name, expression] of Object.entries(flags)) {
    if (!has(name)) continue;
    const code = FORK_CALLS.indexOf(name);
    blocks.push(
      probe(
        `tracepoint:syscalls:sys_enter_${name}`,
        inCgroup,
        `@cf[tid] = ${expression};\n@fk[tid] = ${code};`,
      ),
    );
    exits.push(`tracepoint:syscalls:sys_exit_${name}`);
  }
  if (exits.length > 0) {
    // A failed fork names no child; it is still worth a record (fork bombs hit EAGAIN).
    blocks.push(
      probe(
        exits.join(',\n'),
        inCgroup,
        `if (args->ret < 0 && @fk[tid] != 0) {
  print((${REC_FORK}, nsecs, pid, args->ret, @fk[tid], @cf[tid], comm));
}
delete(@cf[tid]);
delete(@fk[tid]);`,
      ),
    );
  }
  blocks.push(
    probe(
      'tracepoint:sched:sched_process_fork',
      `${inCgroup} && (@cf[tid] & ${CLONE_THREAD}) == 0`,
      // The clone flags travel too: their CLONE_NEW* bits are what exec-namespace-change judges.
      `print((${REC_FORK}, nsecs, pid, args->child_pid, @fk[tid], @cf[tid], comm));`,
    ),
  );
  const lastThread = exitHasGroupDead ? 'args->group_dead' : 'pid == tid';
  blocks.push(
    probe(
      'tracepoint:sched:sched_process_exit',
      `${inCgroup} && ${lastThread}`,
      `print((${REC_EXIT}, nsecs, pid, (int64)curtask->exit_code, comm));`,
    ),
  );
  return blocks;
}
