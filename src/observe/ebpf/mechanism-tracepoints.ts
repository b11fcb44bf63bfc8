import { access } from 'node:fs/promises';
import { join } from 'node:path';

export type MechanismTracepoints = {
  /**
   * raw_syscalls:sys_enter/sys_exit, which alone see 32-bit calls. Only on x86_64, where the
   * compat probes know the TS_COMPAT bit and the i386 numbers.
   */
  compatSyscalls: boolean;
  /** io_uring:io_uring_submit_req, which alone sees the operations a ring runs. */
  ioUring: boolean;
};

/** Which of the tracepoints for evasive mechanisms this kernel has (tracefs mounted at `dir`). */
export async function mechanismTracepoints(dir: string, arch = process.arch): Promise<MechanismTracepoints> {
  const has = (path: string) =>
    access(join(dir, 'events', path)).then(
      () => true,
      () => false,
    );
  const [enter, exit, submit] = await Promise.all([
    has('raw_syscalls/sys_enter'),
    has('raw_syscalls/sys_exit'),
    has('io_uring/io_uring_submit_req'),
  ]);
  return { compatSyscalls: arch === 'x64' && enter && exit, ioUring: submit };
}
