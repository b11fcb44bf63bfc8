import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../package-root.js';

/** Where microvm/build-image.sh leaves the kernel and initramfs. */
export function imageDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENTGUARD_MICROVM_DIR ?? '/var/lib/agentguard/microvm';
}

export type MicrovmImage = { kernel: string; initramfs: string; release: string };

/** The build script ships with the package (`microvm/` is in its files), so the fix names its real path. */
export const BUILD_FIX = `sh ${path.join(packageRoot(), 'microvm', 'build-image.sh')} (from a checkout: scripts/install.sh --microvm)`;

/** The built image, or what is missing. */
export function findImage(dir = imageDir()): MicrovmImage | { missing: string } {
  const kernel = path.join(dir, 'vmlinux');
  const initramfs = path.join(dir, 'initramfs.cpio.gz');
  const releaseFile = path.join(dir, 'kernel-release');
  for (const f of [kernel, initramfs, releaseFile]) if (!existsSync(f)) return { missing: f };
  return { kernel, initramfs, release: readFileSync(releaseFile, 'utf8').trim() };
}
