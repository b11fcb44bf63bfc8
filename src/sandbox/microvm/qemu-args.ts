import type { Accel } from './accel.js';
import { PORTS } from './guest-protocol.js';

export type QemuPlan = {
  accel: Accel;
  /** e.g. '1g' (config microvm.memory). */
  memory: string;
  cpus: number;
  kernel: string;
  initramfs: string;
  repoDir: string;
  homeDir: string;
  node: string;
  runner: string;
  /** Unix sockets the launcher listens on, one per port. */
  sockets: { control: string; stdout: string; stderr: string; net: string };
  /** Host file the tracer's port writes to. */
  traceFile?: string;
  consoleFile: string;
  tscKhz: number | null;
};

/** QEMU's option parser splits on commas; a comma in a value is written twice. */
export function qemuValue(value: string): string {
  return value.replace(/,/g, ',,');
}

/** Paths go on the kernel command line, which splits on spaces. */
export function cmdlineSafe(p: string): boolean {
  return !/[\s"]/.test(p);
}

export function kernelCmdline(plan: QemuPlan): string {
  const parts = [
    'console=ttyS0',
    'quiet',
    'panic=-1',
    'reboot=t',
    'mitigations=off',
    'random.trust_cpu=on',
    'pci=off',
  ];
  if (plan.accel === 'tcg' && plan.tscKhz) {
    // Debian's kernel runs at HZ=250; loops per jiffy follow from the TSC rate.
    parts.push(
      `tsc_early_khz=${plan.tscKhz}`,
      `lpj=${Math.round((plan.tscKhz * 1000) / 250)}`,
      'no_timer_check',
    );
  }
  parts.push(
    `agentguard.repo=${plan.repoDir}`,
    `agentguard.home=${plan.homeDir}`,
    `agentguard.node=${plan.node}`,
    `agentguard.runner=${plan.runner}`,
  );
  return parts.join(' ');
}

/**
 * The QEMU command: the `microvm` machine with no network device and no disk; the host root
 * read-only and the run's workspace and HOME read-write over virtio-9p; virtio-serial ports for
 * control, output, the harness's sockets and the tracer; the console to a file for the evidence.
 */
export function qemuArgv(plan: QemuPlan): string[] {
  const machine =
    plan.accel === 'kvm'
      ? ['-M', 'microvm', '-enable-kvm', '-cpu', 'host']
      : ['-M', 'microvm,pit=on,pic=on,rtc=on', '-accel', 'tcg', '-cpu', 'max'];
  const argv = [
    'qemu-system-x86_64',
    ...machine,
    '-m',
    plan.memory.toUpperCase(),
    '-smp',
    String(plan.cpus),
    '-nodefaults',
    '-no-user-config',
    '-nographic',
    '-no-reboot',
    '-kernel',
    qemuValue(plan.kernel),
    '-initrd',
    qemuValue(plan.initramfs),
    '-append',
    kernelCmdline(plan),
    '-serial',
    `file:${plan.consoleFile}`,
  ];
  const share = (id: string, path: string, readonly: boolean) => {
    argv.push(
      '-fsdev',
      `local,id=${id},path=${qemuValue(path)},security_model=none,multidevs=remap${readonly ? ',readonly=on' : ''}`,
      '-device',
      `virtio-9p-device,fsdev=${id},mount_tag=${id === 'root' ? 'hostroot' : id}`,
    );
  };
  share('root', '/', true);
  share('repo', plan.repoDir, false);
  share('home', plan.homeDir, false);
  argv.push('-device', 'virtio-serial-device,max_ports=8');
  const port = (id: string, chardev: string, name: string) => {
    argv.push('-chardev', `${chardev},id=${id}`, '-device', `virtserialport,chardev=${id},name=${name}`);
  };
  port('ctl', `socket,path=${qemuValue(plan.sockets.control)}`, PORTS.control);
  port('out', `socket,path=${qemuValue(plan.sockets.stdout)}`, PORTS.stdout);
  port('err', `socket,path=${qemuValue(plan.sockets.stderr)}`, PORTS.stderr);
  port('net', `socket,path=${qemuValue(plan.sockets.net)}`, PORTS.net);
  if (plan.traceFile) port('trace', `file,path=${qemuValue(plan.traceFile)}`, PORTS.trace);
  return argv;
}
