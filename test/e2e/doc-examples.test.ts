import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRuleSet } from '../../src/analysis/rules/load-rules.js';
import { flagKey, flagValueProblem } from '../../src/cli/flags.js';
import { parseCommandLine } from '../../src/cli/registry/parse-line.js';
import { CHECK_IDS } from '../../src/config/check-ids.js';
import { docExamples, isPlaceholder } from './doc-examples.js';
import { execCli, ROOT, tempDir } from './exec-cli.js';

const examples = docExamples(ROOT);
const work = tempDir('ag-doc-examples-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Commands whose documented examples run here as written: no placeholder, no service, read-mostly. */
const RUNNABLE =
  /^(run benchmarks\/(js-slugify|attacks\/exfil-ssh-key)\/|registry (list|validate)|reports (list|trends|incidents|batches|export)|diagnostics mutations --list|audit static|collector status)/;

describe('every agentguard command in README.md and docs/', () => {
  it('finds the documented commands', () => {
    expect(examples.length).toBeGreaterThan(60);
    expect(new Set(examples.map((e) => e.file)).size).toBeGreaterThan(8);
  });

  it('parses as the CLI would: the command, its action, its flags and their values exist', () => {
    const rules = new Set(loadRuleSet().rules.map((r) => r.id));
    const problems: string[] = [];
    for (const e of examples) {
      const where = `${e.file}:${e.line}: ${e.text}`;
      try {
        const { spec, args, flags } = parseCommandLine(e.argv);
        if (spec.actions && !spec.ownsArgv && !(args[0] !== undefined && args[0] in spec.actions))
          problems.push(`${where}: '${args[0]}' is not an action of ${spec.name}`);
        for (const flag of spec.ownsArgv ? [] : spec.flags) {
          const value = flags[flagKey(flag.flag)];
          if (value === undefined || (typeof value === 'string' && isPlaceholder(value))) continue;
          const problem = flagValueProblem(flag, value);
          if (problem) problems.push(`${where}: ${problem}`);
        }
        const rule = flags.rule;
        if (typeof rule === 'string' && !isPlaceholder(rule) && !rules.has(rule))
          problems.push(`${where}: no default rule is named '${rule}'`);
        const check = flags.check;
        if (
          typeof check === 'string' &&
          !isPlaceholder(check) &&
          !(CHECK_IDS as readonly string[]).includes(check)
        )
          problems.push(`${where}: no check is named '${check}'`);
        for (const word of e.argv.filter((w) => w.startsWith('benchmarks/')))
          if (!existsSync(path.join(ROOT, word))) problems.push(`${where}: ${word} does not exist`);
      } catch (err) {
        problems.push(`${where}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('runs the ones that need nothing but this repository, without a usage error', async () => {
    const runnable = examples.filter((e) => RUNNABLE.test(e.argv.join(' ')) && !e.argv.some(isPlaceholder));
    expect(runnable.length).toBeGreaterThan(8);
    const exec = async (e: (typeof runnable)[number]) => {
      const argv = e.argv.map((w) => (w.startsWith('benchmarks/') ? path.join(ROOT, w) : w));
      return {
        e,
        r: await execCli(['--output-dir', path.join(work, '.agentguard'), ...argv], { cwd: work }),
      };
    };
    // The runs first, as a reader would: the reports examples then have a history to read.
    const runs = await Promise.all(runnable.filter((e) => e.argv[0] === 'run').map(exec));
    const rest = await Promise.all(runnable.filter((e) => e.argv[0] !== 'run').map(exec));
    const outcomes = [...runs, ...rest];
    for (const { e, r } of outcomes) {
      // 0 and 1 are verdicts (an attack example fails); 2 is bad input, which a doc must never show.
      expect([0, 1], `${e.file}:${e.line}: ${e.text}\n${r.stderr}`).toContain(r.code);
      expect(r.stderr, `${e.file}:${e.line}`).not.toMatch(/Unknown option|is not a command|internal error/);
    }
  }, 600_000);
});
