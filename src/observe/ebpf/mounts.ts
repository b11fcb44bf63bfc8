import { readFile } from 'node:fs/promises';

/** Mount points of a filesystem type in /proc/mounts text (octal escapes such as `\040` undone). */
export function mountPoints(mounts: string, fstype: string): string[] {
  const points: string[] = [];
  for (const line of mounts.split('\n')) {
    const fields = line.split(' ');
    if (fields[2] === fstype && fields[1]) {
      points.push(
        fields[1].replace(/\\([0-7]{3})/g, (_, octal: string) =>
          String.fromCharCode(Number.parseInt(octal, 8)),
        ),
      );
    }
  }
  return points;
}

export async function readMounts(): Promise<string> {
  return readFile('/proc/mounts', 'utf8');
}

/** The cgroup v2 mount (`/sys/fs/cgroup` on unified hosts, `/sys/fs/cgroup/unified` on hybrid ones). */
export async function findCgroup2Mount(): Promise<string | undefined> {
  return mountPoints(await readMounts(), 'cgroup2')[0];
}
