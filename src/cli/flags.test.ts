import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { flagKey, flagName, flagValueProblem, oneOf, orList, wholeNumber } from './flags.js';

describe('a whole-number flag', () => {
  const trials = { fallback: 1, min: 1, max: 1000, example: 5 };

  it('is its fallback when not given, and the number when given as text or number', () => {
    expect(wholeNumber('--trials', undefined, trials)).toBe(1);
    expect(wholeNumber('--trials', '7', trials)).toBe(7);
    expect(wholeNumber('--trials', 1000, trials)).toBe(1000);
  });

  it('refuses a bare flag, a blank, a fraction, text and a number out of range in one sentence', () => {
    for (const bad of [true, '', ' ', '2.5', 'five', '0', 1001, '1e9', 'NaN']) {
      expect(() => wholeNumber('--trials', bad, trials), String(bad)).toThrow(ConfigError);
      expect(() => wholeNumber('--trials', bad, trials), String(bad)).toThrow(
        `--trials '${String(bad)}' is not a whole number from 1 to 1000. Fix: e.g. --trials 5.`,
      );
    }
  });

  it('says an open range as ≥ and takes a fix in place of the example', () => {
    expect(() => wholeNumber('--limit', '0', { fallback: 20, min: 1 })).toThrow(
      "--limit '0' is not a whole number ≥ 1. Fix: e.g. --limit 20.",
    );
    expect(() =>
      wholeNumber('--port', 'http', { fallback: 0, min: 0, max: 65535, fix: 'leave it out' }),
    ).toThrow("--port 'http' is not a whole number from 0 to 65535. Fix: leave it out.");
  });
});

describe('a flag with choices', () => {
  it('is undefined when not given, the value when allowed, refused naming the choices otherwise', () => {
    expect(oneOf('--guard', undefined, ['audit', 'enforce'])).toBeUndefined();
    expect(oneOf('--guard', 'enforce', ['audit', 'enforce'])).toBe('enforce');
    expect(() => oneOf('--guard', 'Enforce', ['audit', 'enforce'])).toThrow(
      "--guard 'Enforce' is not known. Fix: use one of audit, enforce.",
    );
    expect(() => oneOf('--guard', true, ['audit', 'enforce'])).toThrow("--guard 'true' is not known.");
  });
});

describe("a flag's names", () => {
  it('are the long name a user types and the key cac parses it to', () => {
    expect(flagName('-o, --out <file>')).toBe('--out');
    expect(flagKey('-o, --out <file>')).toBe('out');
    expect(flagKey('--allow-below-floor')).toBe('allowBelowFloor');
    expect(flagKey('--no-tests')).toBe('tests');
    expect(orList(['a'])).toBe('a');
    expect(orList(['a', 'b', 'c'])).toBe('a, b or c');
  });

  it("checks a value against a registry entry's choices and range", () => {
    expect(flagValueProblem({ flag: '--n <n>', help: 'n', whole: { min: 2, max: 3 } }, '3')).toBeNull();
    expect(flagValueProblem({ flag: '--n <n>', help: 'n', whole: { min: 2, max: 3 } }, '4')).toMatch(
      /--n '4' is not a whole number from 2 to 3/,
    );
    expect(flagValueProblem({ flag: '--k <k>', help: 'k', choices: ['x'] }, 'y')).toMatch(
      /--k 'y' is not known/,
    );
  });
});
