/**
 * The environment variables both tracers record for every exec (ATT&CK T1574.006, T1546 and kin):
 * those that make a dynamic loader, an interpreter, a shell or git load code or run a command the
 * program itself never named. One list for both tracers: strace's parser filters the printed
 * environment with it, and the compiled collector's name table (collector/exec-env.h) is
 * generated from it (collector/gen-exec-env.mjs; test/collector/protocol.test.ts keeps them equal).
 * Everything else in an environment (tokens, PATH, locale) is never recorded.
 */

/** Variables recorded by exact name, grouped by what reads them. */
export const EXEC_ENV_NAMES = [
  // glibc's dynamic loader: libraries loaded into every dynamically linked program, the folders
  // searched first, audit modules, iconv modules, and tunables (CVE-2023-4911's door).
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'GCONV_PATH',
  'GLIBC_TUNABLES',
  // Node: options (--require, --import, --loader) and module folders.
  'NODE_OPTIONS',
  'NODE_PATH',
  // Python: module folders, the interactive startup file, the standard library's home.
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  // Perl and Ruby: options (-M, -r) and library folders.
  'PERL5OPT',
  'PERL5LIB',
  'RUBYOPT',
  'RUBYLIB',
  // JVMs: -javaagent: and -XX options read by every java.
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  // Shells: a file sourced by every non-interactive bash (BASH_ENV) or POSIX sh (ENV), a command
  // run before every prompt.
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  // git: the ssh program it runs, its helper programs' folder, the hooks' template folder.
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
] as const;

/**
 * Variables recorded by prefix: git's configuration given in the environment (GIT_CONFIG_GLOBAL,
 * GIT_CONFIG_SYSTEM, GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>,
 * GIT_CONFIG_VALUE_<n>) can set core.hooksPath, core.sshCommand or core.fsmonitor.
 */
export const EXEC_ENV_PREFIXES = ['GIT_CONFIG'] as const;

/**
 * Bounds of what one exec records (the collector's, and strace's parser keeps the same): at most
 * MAX_EXEC_ENV variables, among the first MAX_EXEC_ENV_SCANNED entries of the environment, each
 * value up to the path limit. An exec over a bound says so (`SysEvent.env_truncated`).
 */
export const MAX_EXEC_ENV = 16;
export const MAX_EXEC_ENV_SCANNED = 512;

const EXACT = new Set<string>(EXEC_ENV_NAMES);

/** Whether an environment variable's name is one the tracers record. */
export function isRecordedEnvName(name: string): boolean {
  return EXACT.has(name) || EXEC_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

export type RecordedEnv = { env: string[]; truncated: boolean };

/**
 * The recorded variables of an environment given as `NAME=value` entries, in their order and with
 * repeats (the dynamic loader takes the last LD_PRELOAD, getenv the first), within the bounds above.
 */
export function recordedEnv(entries: readonly string[], entriesCut = false): RecordedEnv {
  const env: string[] = [];
  let truncated = entriesCut || entries.length > MAX_EXEC_ENV_SCANNED;
  for (const entry of entries.slice(0, MAX_EXEC_ENV_SCANNED)) {
    const at = entry.indexOf('=');
    if (at <= 0 || !isRecordedEnvName(entry.slice(0, at))) continue;
    if (env.length === MAX_EXEC_ENV) {
      truncated = true;
      break;
    }
    env.push(entry);
  }
  return { env, truncated };
}

/** The entries of an exec's recorded environment as [name, value] pairs. */
export function envPairs(env: readonly string[]): [string, string][] {
  return env.map((entry) => {
    const at = entry.indexOf('=');
    return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
  });
}
