/**
 * The few error classes the project throws. The CLI turns each into one sentence and exit code 2;
 * nothing else should reach the user as a stack trace.
 */
export type ErrorCode = 'config' | 'setup' | 'input' | 'internal';

export class AgentGuardError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/**
 * One problem in a file a user wrote (config, profile, trajectory, rule, batch file): the file,
 * the field path (`network.allow`, `turns[0].shell`; empty for the whole file), what is wrong and
 * the fix. `suggestion` is the key or value the user most likely meant, taken from the schema.
 */
export type ConfigIssue = {
  file: string;
  field: string;
  message: string;
  fix: string;
  suggestion?: string;
  /** Where in the file, in words, when a field path cannot say it: `rule 'x'`, `macro 'm'`. */
  where?: string;
  /** Where a syntax error is, when the file could not be parsed. */
  line?: { line: number; col: number };
};

/** An issue as the one sentence the CLI prints: file, field, what is wrong, the fix. */
export function formatIssue(issue: ConfigIssue): string {
  const at = [issue.where, issue.field ? `field '${issue.field}'` : ''].filter((w) => w).join(', ');
  const where = at ? `${issue.file}: ${at}` : issue.file;
  return `${where}: ${issue.message}. Fix: ${issue.fix}${/[.?!]$/.test(issue.fix) ? '' : '.'}`;
}

/**
 * A config file is wrong: names the file, the field and the fix. Built from issues, it keeps them
 * (the CLI prints one per line) and its message is their sentences, one per line.
 */
export class ConfigError extends AgentGuardError {
  declare readonly issues: readonly ConfigIssue[];
  constructor(problem: string | readonly ConfigIssue[], options?: { cause?: unknown }) {
    super('config', typeof problem === 'string' ? problem : problem.map(formatIssue).join('\n'), options);
    // Not enumerable: two ConfigErrors with one message stay equal, as before issues were kept.
    Object.defineProperty(this, 'issues', { value: typeof problem === 'string' ? [] : problem });
  }
}

/** The host cannot do what was asked (missing tool, permission, unwritable output). */
export class SetupError extends AgentGuardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('setup', message, options);
  }
}

/** A stored artifact (run directory, report, trace) is missing or corrupt. */
export class InputError extends AgentGuardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('input', message, options);
  }
}

export class InternalError extends AgentGuardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, options);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
