import { accessSync, constants, existsSync, readFileSync } from 'node:fs';

export type Accel = 'kvm' | 'tcg';
export type AccelChoice = { accel: Accel; reason: string };

/**
 * Whether the host's KVM can boot a stock kernel. /dev/kvm can exist and still not do it: a host
 * that is itself a VM may offer KVM through PVM (the kvm_pvm module), which runs only guests built
 * for PVM — a Debian kernel stops there with "KVM internal error: emulation failure" (measured).
 */
export function kvmUsable(): { ok: true } | { ok: false; reason: string } {
  if (!existsSync('/dev/kvm')) return { ok: false, reason: '/dev/kvm does not exist (no KVM on this host)' };
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
  } catch {
    return { ok: false, reason: '/dev/kvm is not readable and writable by this user' };
  }
  if (existsSync('/sys/module/kvm_pvm'))
    return {
      ok: false,
      reason: "this host's KVM is PVM (kvm_pvm), which boots only PVM-enabled guest kernels, not Debian's",
    };
  return { ok: true };
}

export function chooseAccel(requested: 'auto' | Accel): AccelChoice | { error: string } {
  const kvm = kvmUsable();
  if (requested === 'tcg') return { accel: 'tcg', reason: 'tcg requested (software emulation)' };
  if (kvm.ok) return { accel: 'kvm', reason: 'KVM' };
  if (requested === 'kvm') return { error: kvm.reason };
  return { accel: 'tcg', reason: `TCG software emulation, because ${kvm.reason}` };
}

/** The host TSC rate in kHz: under TCG the guest cannot calibrate its clock by itself (no PIT/HPET worth the name). */
export function hostTscKhz(): number | null {
  try {
    const mhz = /cpu MHz\s*:\s*([\d.]+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
    return mhz ? Math.round(Number(mhz) * 1000) : null;
  } catch {
    return null;
  }
}
