import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPORT_READERS } from '../analysis/test-results/parse-report.js';
import type { CommandRecord, TestReportFormat, TestResults } from '../evidence/types.js';
import { splitEnvPrefix } from './env-prefix.js';

/**
 * How the test runner is asked for a report of its tests by name, without the user writing it into
 * test_command: the runner is recognised from the argv and given its own report option; the
 * command's output is read when the runner prints its results there anyway.
 */
export type ReportPlan = {
  /** The test command as it runs. */
  argv: string[];
  format: TestReportFormat;
  /** Where the runner writes its report; without it the report is the command's output. */
  file?: string;
  stream?: 'stdout' | 'stderr';
  /** A runner agentguard does not know: every text format is tried on both streams. */
  guess?: boolean;
};

/** What a command agentguard does not know may print, tried in this order. */
const GUESSED: TestReportFormat[] = ['tap', 'unittest', 'go-json', 'cargo'];

const PYTHON = /^python(\d+(\.\d+)?)?$/;

/**
 * The plan for one argv: node's test runner, pytest, python's unittest, go test, cargo test,
 * vitest, jest; anything else is read as TAP from its output, if it prints any. `file` is a path
 * the sandboxed runner can write (in the folder the tests run in).
 */
export function planTestReport(argv: readonly string[], file: string): ReportPlan {
  const { prefix, command } = splitEnvPrefix(argv);
  const plan = planForRunner(command, file);
  return { ...plan, argv: [...prefix, ...plan.argv] };
}

function planForRunner(argv: readonly string[], file: string): ReportPlan {
  const exe = path.basename(argv[0] ?? '');
  const at = (word: string) => argv.indexOf(word);
  const insertAfter = (i: number, extra: string[]) => [
    ...argv.slice(0, i + 1),
    ...extra,
    ...argv.slice(i + 1),
  ];
  const has = (prefix: string) => argv.some((a) => a === prefix || a.startsWith(`${prefix}=`));
  if (exe === 'node' && at('--test') > 0 && !has('--test-reporter')) {
    return {
      argv: insertAfter(at('--test'), [
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=junit',
        `--test-reporter-destination=${file}`,
      ]),
      format: 'junit',
      file,
    };
  }
  const module = PYTHON.test(exe) && argv[1] === '-m' ? argv[2] : undefined;
  if (exe === 'pytest' || exe === 'py.test' || module === 'pytest') {
    return { argv: [...argv, `--junitxml=${file}`], format: 'junit', file };
  }
  if (module === 'unittest') {
    // `-v` goes after the subcommand: before `discover`, unittest would take `discover` for a test name.
    const at = argv[3] === 'discover' ? 3 : 2;
    return { argv: has('-v') ? [...argv] : insertAfter(at, ['-v']), format: 'unittest', stream: 'stderr' };
  }
  if (exe === 'go' && argv[1] === 'test') {
    return {
      argv: has('-json') ? [...argv] : insertAfter(1, ['-json']),
      format: 'go-json',
      stream: 'stdout',
    };
  }
  if (exe === 'cargo' && argv[1] === 'test') return { argv: [...argv], format: 'cargo', stream: 'stdout' };
  const tool = argv.slice(0, 3).map((a) => path.basename(a));
  if (tool.includes('vitest') && !has('--reporter')) {
    return {
      argv: [...argv, '--reporter=default', '--reporter=junit', `--outputFile.junit=${file}`],
      format: 'junit',
      file,
    };
  }
  if (tool.includes('jest') && !has('--json')) {
    return { argv: [...argv, '--json', `--outputFile=${file}`], format: 'jest-json', file };
  }
  return { argv: [...argv], format: 'tap', stream: 'stdout', guess: true };
}

/** Read what the plan names (and remove the report file: it is not the task's). */
export function readTestReport(plan: ReportPlan, record: CommandRecord): TestResults {
  let text: string;
  let from: string;
  if (plan.file) {
    from = `the ${plan.format} report`;
    try {
      text = readFileSync(plan.file, 'utf8');
    } catch {
      return { format: null, cases: [], reason: `the runner wrote no ${plan.format} report` };
    } finally {
      rmSync(plan.file, { force: true });
    }
  } else if (plan.guess) {
    for (const format of GUESSED) {
      for (const out of [record.stdout, record.stderr]) {
        const cases = REPORT_READERS[format](out);
        if (cases.length > 0) return { format, cases };
      }
    }
    return {
      format: null,
      cases: [],
      reason:
        'the test runner is not one agentguard asks for a report, and its output holds no test results it can read',
    };
  } else {
    from = `its ${plan.stream}`;
    text = plan.stream === 'stderr' ? record.stderr : record.stdout;
  }
  const cases = REPORT_READERS[plan.format](text);
  if (cases.length === 0) {
    return {
      format: null,
      cases,
      reason: `no test results could be read from ${from}`,
    };
  }
  return { format: plan.format, cases };
}
