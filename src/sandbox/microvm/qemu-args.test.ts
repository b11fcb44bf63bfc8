import { describe, expect, it } from 'vitest';
import { kernelCmdline, type QemuPlan, qemuArgv } from './qemu-args.js';

const plan: QemuPlan = {
  accel: 'tcg',
  memory: '1g',
  cpus: 1,
  kernel: '/img/vmlinux',
  initramfs: '/img/initramfs.cpio.gz',
  repoDir: '/out/runs/r1/repo',
  homeDir: '/out/runs/r1/home',
  node: '/usr/bin/node',
  runner: '/app/dist/sandbox/microvm/guest/guest-run.js',
  sockets: { control: '/tmp/s/c', stdout: '/tmp/s/o', stderr: '/tmp/s/e', net: '/tmp/s/n' },
  traceFile: '/out/runs/r1/tracer/strace,1.log',
  consoleFile: '/out/runs/r1/evidence/microvm/console-1.log',
  tscKhz: 2_600_000,
};

describe('the QEMU command', () => {
  it('has no network device and no disk: 9p shares and virtio-serial ports only', () => {
    const argv = qemuArgv(plan).join(' ');
    expect(argv).toContain('-nodefaults');
    expect(argv).not.toMatch(/-netdev|-nic|virtio-net|-drive/);
    expect(argv).toContain('path=/,security_model=none,multidevs=remap,readonly=on');
    expect(argv).toContain(`path=${plan.repoDir},security_model=none,multidevs=remap -device`);
    expect(argv).toContain('name=agentguard.trace');
  });

  it('doubles commas in paths, the only escape QEMU options know', () => {
    expect(qemuArgv(plan).join(' ')).toContain('file,path=/out/runs/r1/tracer/strace,,1.log');
  });

  it('gives a TCG guest its clock rate and KVM none', () => {
    expect(kernelCmdline(plan)).toContain('tsc_early_khz=2600000 lpj=10400000');
    expect(kernelCmdline({ ...plan, accel: 'kvm' })).not.toContain('tsc_early_khz');
    expect(qemuArgv({ ...plan, accel: 'kvm' })).toContain('-enable-kvm');
  });
});
