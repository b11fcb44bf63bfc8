import path from 'node:path';

/**
 * A test command that sets variables through `env` (`env PYTHONPATH=src python3 -m pytest`, as
 * `init` writes for a src/ layout) split into that prefix and the runner it starts, so the runner is
 * recognised under it. `env` with options of its own (`-i`, `-u NAME`) is left whole: what runs is
 * then not read from the words alone.
 */
export function splitEnvPrefix(argv: readonly string[]): { prefix: string[]; command: string[] } {
  if (path.basename(argv[0] ?? '') !== 'env') return { prefix: [], command: [...argv] };
  let i = 1;
  while (i < argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i] as string)) i++;
  if (i >= argv.length || (argv[i] as string).startsWith('-')) return { prefix: [], command: [...argv] };
  return { prefix: argv.slice(0, i), command: argv.slice(i) };
}
