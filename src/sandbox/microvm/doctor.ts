import { spawnSync } from 'node:child_process';
import { type MicrovmConfig, MicrovmSchema } from '../../config/schema.js';
import { bwrapAvailability } from '../bwrap.js';
import type { SandboxAvailability } from '../types.js';
import { chooseAccel, kvmUsable } from './accel.js';
import { BUILD_FIX, findImage, imageDir } from './image.js';

const QEMU_FIX = `apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static cpio, then ${BUILD_FIX}`;

/** Whether a microVM can start here: QEMU, a built image, an accelerator, bwrap for the inner sandbox. */
export function microvmAvailability(cfg: MicrovmConfig = MicrovmSchema.parse({})): SandboxAvailability {
  const qemu = spawnSync('qemu-system-x86_64', ['--version'], { encoding: 'utf8' });
  if (qemu.error || qemu.status !== 0)
    return { ok: false, reason: 'QEMU (qemu-system-x86_64) is not installed', fix: QEMU_FIX };
  const version = /version\s+(\S+)/.exec(qemu.stdout)?.[1] ?? 'unknown';
  const machines = spawnSync('qemu-system-x86_64', ['-machine', 'help'], { encoding: 'utf8' });
  if (!/^microvm\b/m.test(machines.stdout ?? ''))
    return {
      ok: false,
      reason: `QEMU ${version} has no 'microvm' machine type`,
      fix: 'apt-get install -y qemu-system-x86 (7.0 or newer)',
    };
  const image = findImage();
  if ('missing' in image)
    return {
      ok: false,
      reason: `the microvm kernel and initramfs are not built (${image.missing} is missing)`,
      fix: BUILD_FIX,
    };
  const accel = chooseAccel(cfg.accel);
  if ('error' in accel)
    return {
      ok: false,
      reason: `microvm.accel is kvm but ${accel.error}`,
      fix: "set microvm.accel to 'auto' or 'tcg'",
    };
  const bwrap = bwrapAvailability();
  if (!bwrap.ok)
    return { ok: false, reason: `the guest runs the agent under bwrap, and ${bwrap.reason}`, fix: bwrap.fix };
  return { ok: true, version: `QEMU ${version}, kernel ${image.release}, ${accel.reason}` };
}

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
