import { describe, expect, it } from 'vitest';
import { closest, notACommand } from './usage-error.js';

const COMMANDS = ['run', 'reports', 'registry', 'compare', 'ci', 'init', 'doctor', 'demo', 'view'];

describe('closest', () => {
  it('suggests the command a typo was meant to be', () => {
    expect(closest('runn', COMMANDS)).toBe('run');
    expect(closest('rpeorts', COMMANDS)).toBe('reports');
    expect(closest('doctr', COMMANDS)).toBe('doctor');
    expect(closest('INIT', COMMANDS)).toBe('init');
    expect(closest('lst', ['list', 'show', 'batches'])).toBe('list');
  });

  it('suggests a unique prefix, and nothing for a word that is far from every command', () => {
    expect(closest('regis', COMMANDS)).toBe('registry');
    expect(closest('re', COMMANDS)).toBeNull();
    expect(closest('deploy', COMMANDS)).toBeNull();
    // Short commands take one edit at most: 'cx' could be anything.
    expect(closest('xy', COMMANDS)).toBeNull();
  });
});

describe('notACommand', () => {
  it('names what was typed, the suggestion and the fix in one sentence', () => {
    const fix = "use 'reports list' or 'reports show RUN_ID'.";
    expect(notACommand({ command: 'reports', typed: 'lst', known: ['list', 'show'], fix }).message).toBe(
      "'reports lst' is not a command. Did you mean 'reports list'? Fix: use 'reports list' or 'reports show RUN_ID'.",
    );
    expect(notACommand({ typed: 'zzz', known: ['list'], fix: 'see --help.' }).message).toBe(
      "'zzz' is not a command. Fix: see --help.",
    );
    // A known action used the wrong way gets the fix, not itself as a suggestion.
    expect(
      notACommand({ command: 'agents', typed: 'install', known: ['install', 'list'], fix }).message,
    ).toBe(`'agents install' is not a command. Fix: ${fix}`);
  });
});
