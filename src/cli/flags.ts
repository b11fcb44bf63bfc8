import { ConfigError, errorMessage } from '../errors.js';

/**
 * One flag of a command, as the registry declares it: cac's form (`--trials <n>`, `-o, --out
 * <file>`, `--json`), its help, and what its value may be. Commands read their values through
 * oneOf and wholeNumber below, so that a bad value gets the same sentence from every command.
 */
export type FlagSpec = {
  flag: string;
  help: string;
  /** The only values accepted. */
  choices?: readonly string[];
  /** A whole number in this range. */
  whole?: { min: number; max?: number };
};

/** `--trials <n>` → `--trials`, `-o, --out <file>` → `--out`: the long name a user types. */
export function flagName(flag: string): string {
  return flag.split(/[ ,]+/).find((part) => part.startsWith('--')) ?? flag;
}

/** `--trials <n>` → `trials`, `-o, --out <file>` → `out`, `--no-tests` → `tests`: cac's key. */
export function flagKey(flag: string): string {
  const name = flagName(flag).replace(/^--(no-)?/, '');
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** `a, b or c`. */
export function orList(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** A flag's value when it is one of `allowed`, undefined when the flag is not given. */
export function oneOf<T extends string>(flag: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  throw new ConfigError(`${flag} '${String(value)}' is not known. Fix: use one of ${allowed.join(', ')}.`);
}

/**
 * A whole-number flag, `fallback` when not given. A bare `--trials` (cac's `true`), a fraction or a
 * number out of range is refused with the range and an example, naming the flag.
 */
export function wholeNumber(
  flag: string,
  value: unknown,
  range: { fallback: number; min: number; max?: number; example?: number; fix?: string },
): number {
  if (value === undefined) return range.fallback;
  const n = Number(value);
  const text = String(value);
  if (
    typeof value === 'boolean' ||
    text.trim() === '' ||
    !Number.isInteger(n) ||
    n < range.min ||
    (range.max !== undefined && n > range.max)
  ) {
    const span = range.max === undefined ? `≥ ${range.min}` : `from ${range.min} to ${range.max}`;
    const fix = range.fix ?? `e.g. ${flag} ${range.example ?? range.fallback}`;
    throw new ConfigError(`${flag} '${text}' is not a whole number ${span}. Fix: ${fix}.`);
  }
  return n;
}

/** Why a flag value is refused (its choices, its range), or null: used to check the registry's examples. */
export function flagValueProblem(spec: FlagSpec, value: unknown): string | null {
  try {
    if (spec.choices) oneOf(flagName(spec.flag), value, spec.choices);
    if (spec.whole) wholeNumber(flagName(spec.flag), value, { fallback: spec.whole.min, ...spec.whole });
    return null;
  } catch (err) {
    return errorMessage(err);
  }
}
