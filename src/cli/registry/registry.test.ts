import { describe, expect, it } from 'vitest';
import { GUARD_MODES } from '../../pipeline/live-guard.js';
import { AGENT_ENV_FLAG } from '../../queue/agent-env.js';
import { ALLOW_BELOW_FLOOR_FLAG } from '../../queue/worker.js';
import { SCHEMA_KINDS } from '../../schemas/json-schemas.js';
import { flagKey, flagName, flagValueProblem } from '../flags.js';
import { COMMANDS, GROUP_TITLES } from './index.js';
import { parseCommandLine } from './parse-line.js';
import { GUARD_CHOICES } from './start.js';

/** An example's argv: `agentguard` dropped, a shell redirection (`> file`) left out. */
function exampleArgv(example: string): string[] {
  const words = example.split(' > ')[0]?.trim().split(/\s+/) ?? [];
  expect(words[0], example).toBe('agentguard');
  return words.slice(1);
}

/** Parse an example as the CLI would, without running it: the command matched, its arguments and flags. */
function parseExample(example: string) {
  return parseCommandLine(exampleArgv(example));
}

describe('the command registry', () => {
  it('declares each command once, in a group, with a summary, a description and two examples', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of COMMANDS) {
      expect(GROUP_TITLES, c.name).toContain(c.group);
      expect(c.usage.split(' ')[0], c.name).toBe(c.name);
      expect(c.summary.length, c.name).toBeGreaterThan(20);
      expect(c.description.length, c.name).toBeGreaterThan(c.summary.length / 2);
      expect(c.examples.length, c.name).toBeGreaterThanOrEqual(2);
      // Shown as `  $ example` within the help's 100 columns.
      for (const example of c.examples) expect(example.length, example).toBeLessThanOrEqual(96);
      if (c.actions) expect(c.usage, c.name).toMatch(/^\S+ <action>/);
      for (const flag of c.flags) expect(flag.help.length, `${c.name} ${flag.flag}`).toBeGreaterThan(5);
      const keys = c.flags.map((f) => flagKey(f.flag));
      expect(new Set(keys).size, `${c.name}: a flag declared twice`).toBe(keys.length);
    }
  });

  it('parses every example: its command, its action, its flags and their values', () => {
    for (const c of COMMANDS.filter((c) => !c.ownsArgv)) {
      for (const example of c.examples) {
        const { spec, args, flags } = parseExample(example);
        expect(spec.name, example).toBe(c.name);
        if (c.actions) expect(Object.keys(c.actions), example).toContain(args[0]);
        for (const flag of c.flags) {
          const value = flags[flagKey(flag.flag)];
          if (value !== undefined) expect(flagValueProblem(flag, value), example).toBeNull();
        }
      }
    }
  });

  it("checks model-server's examples against the flags it parses itself", () => {
    const server = COMMANDS.find((c) => c.name === 'model-server');
    for (const example of server?.examples ?? []) {
      const argv = exampleArgv(example).slice(1);
      for (const word of argv.filter((w) => w.startsWith('--')))
        expect(
          server?.flags.map((f) => flagName(f.flag)),
          example,
        ).toContain(word);
    }
  });

  it('refuses a value outside its choices or range in an example, so the check above can fail', () => {
    const run = COMMANDS.find((c) => c.name === 'run');
    const tracer = run?.flags.find((f) => f.flag.startsWith('--tracer'));
    const trials = run?.flags.find((f) => f.flag.startsWith('--trials'));
    expect(tracer && flagValueProblem(tracer, 'dtrace')).toMatch(/--tracer 'dtrace' is not known/);
    expect(trials && flagValueProblem(trials, 0)).toMatch(/is not a whole number from 1 to 1000/);
    expect(trials && flagValueProblem(trials, true)).toMatch(/is not a whole number/);
    expect(() => parseExample('agentguard run x.yaml --trails 3')).toThrow(/Unknown option `--trails`/);
  });

  it('names the flags and choices the command modules check by the same spelling', () => {
    expect([...GUARD_CHOICES].sort()).toEqual([...GUARD_MODES].sort());
    const worker = COMMANDS.find((c) => c.name === 'worker')?.flags.map((f) => flagName(f.flag));
    expect(worker).toContain(ALLOW_BELOW_FLOOR_FLAG);
    expect(worker).toContain(AGENT_ENV_FLAG);
  });

  it("loads every command's module and finds its work there", async () => {
    for (const c of COMMANDS) expect(typeof (await c.load()), c.name).toBe('function');
  });

  it('builds the help that needs a heavy module only when asked', async () => {
    const schema = COMMANDS.find((c) => c.name === 'schema');
    const late = await schema?.lateHelp?.();
    for (const kind of SCHEMA_KINDS) expect(late?.description).toContain(kind);
  });
});
