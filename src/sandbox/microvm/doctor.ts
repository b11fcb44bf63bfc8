import { spawnSync } from 'node:child_process';
import type { SandboxAvailability } from '../types.js';
import { chooseAccel, kvmUsable } from './accel.js';
import { BUILD_FIX, findImage, imageDir } from './image.js';
import { microvmAvailability } from './microvm.js';

/** The microvm sandbox's parts, each with whether it works here and the fix: for `doctor`. */
export function microvmFindings(): { name: string; result: SandboxAvailability }[] {
  const qemu = spawnSync('qemu-system-x86_64', ['--version'], { encoding: 'utf8' });
  const kvm = kvmUsable();
  const accel = chooseAccel('auto');
  const image = findImage();
  return [
    { name: 'microvm', result: microvmAvailability() },
    {
      name: 'microvm: QEMU',
      result:
        qemu.error || qemu.status !== 0
          ? { ok: false, reason: 'qemu-system-x86_64 is not installed', fix: 'scripts/install.sh --microvm' }
          : { ok: true, version: qemu.stdout.split('\n')[0]?.trim() ?? 'installed' },
    },
    {
      name: 'microvm: KVM',
      result: kvm.ok
        ? { ok: true, version: '/dev/kvm boots the guest kernel' }
        : {
            ok: false,
            reason: `${kvm.reason}; microvm.accel auto uses ${'error' in accel ? 'nothing' : accel.accel} (software emulation, boots take seconds)`,
            fix: 'run on a host with hardware KVM (nested virtualisation enabled), or accept TCG (microvm.accel: tcg)',
          },
    },
    {
      name: 'microvm: kernel and initramfs',
      result:
        'missing' in image
          ? { ok: false, reason: `${image.missing} is missing (in ${imageDir()})`, fix: BUILD_FIX }
          : { ok: true, version: `kernel ${image.release}, ${image.initramfs}` },
    },
  ];
}
