import { cleanPath } from './normalise-path.js';

/**
 * Program start-up noise: files every process of a given interpreter opens whatever the task is.
 * They stay in the star graph (a loader reading an odd library can matter to a security reader) but
 * carry the name of the rule that matched, and the `behaviour` view leaves them out, because
 * similarity over them measures "node ran in both" rather than "the agent worked alike".
 *
 * Rules match normalised names (after `$HOME`, `$PID`… placeholders), first match wins.
 */
export type RuntimeRule = { name: string; test: (name: string) => boolean };

const under =
  (...prefixes: string[]) =>
  (name: string) =>
    prefixes.some(
      (prefix) => name === prefix || name.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
    );
const oneOf =
  (...names: string[]) =>
  (name: string) =>
    names.includes(name);

export const RUNTIME_RULES: readonly RuntimeRule[] = [
  { name: 'dynamic-linker', test: (n) => n.startsWith('/etc/ld.so.') },
  // Anywhere: system libraries, but also Python extension modules inside a workspace venv.
  { name: 'shared-library', test: (n) => /\/[^/]+\.so(\.\d+)*$/.test(n) },
  {
    name: 'locale',
    test: (n) =>
      under(
        '/usr/lib/locale',
        '/usr/share/locale',
        '/usr/share/i18n',
        '/usr/share/zoneinfo',
        '/usr/lib/x86_64-linux-gnu/gconv',
        '/usr/lib/aarch64-linux-gnu/gconv',
      )(n) || oneOf('/etc/localtime', '/etc/locale.alias', '/etc/timezone')(n),
  },
  { name: 'process-self', test: under('/proc/self', '/proc/thread-self', '/proc/$PID') },
  { name: 'system-info', test: under('/proc', '/sys/fs/cgroup', '/sys/devices/system') },
  {
    name: 'devices',
    test: (n) =>
      oneOf(
        '/dev/null',
        '/dev/zero',
        '/dev/random',
        '/dev/urandom',
        '/dev/tty',
        '/dev/ptmx',
        '/dev/full',
      )(n) || under('/dev/pts', '/dev/fd', '/dev/stdin', '/dev/stdout', '/dev/stderr')(n),
  },
  {
    name: 'name-service',
    test: oneOf(
      '/etc/nsswitch.conf',
      '/etc/passwd',
      '/etc/group',
      '/etc/hosts',
      '/etc/host.conf',
      '/etc/resolv.conf',
      '/etc/gai.conf',
      '/etc/services',
      '/etc/protocols',
      'unix:/run/nscd/socket',
      'unix:/var/run/nscd/socket',
    ),
  },
  { name: 'tls-config', test: under('/etc/ssl', '/usr/lib/ssl', '/usr/share/ca-certificates') },
  {
    name: 'terminal',
    test: (n) => under('/usr/share/terminfo', '/lib/terminfo', '/etc/terminfo')(n) || n === '/etc/inputrc',
  },
  // An interpreter reading its own binary, or the program file an exec started.
  {
    name: 'program-image',
    test: under('/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'),
  },
  {
    name: 'interpreter-library',
    test: (n) =>
      /^\/usr\/(local\/)?lib\/python3[^/]*\//.test(n) ||
      /^\/usr\/(local\/)?lib\/node_modules\/(npm|corepack)\//.test(n) ||
      under('/usr/share/nodejs', '/usr/lib/ruby', '/usr/share/perl', '/usr/share/perl5', '/usr/lib/jvm')(n),
  },
];

/**
 * The runtime rule a file (or unix-socket host) name matches, or undefined for behaviour.
 * `extraDirs` are folders declared runtime by the caller, for instance the agent's own installation
 * (a coding agent reading its own bundle says nothing about the task); they are matched as
 * already-normalised prefixes and reported as rule `declared`.
 */
export function runtimeRule(name: string, extraDirs: readonly string[] = []): string | undefined {
  for (const dir of extraDirs) {
    const d = cleanPath(dir);
    if (name === d || name.startsWith(`${d}/`)) return 'declared';
  }
  return RUNTIME_RULES.find((rule) => rule.test(name))?.name;
}
