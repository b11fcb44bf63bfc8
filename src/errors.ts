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

/** A config file is wrong: names the file, the field and the fix. */
export class ConfigError extends AgentGuardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('config', message, options);
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
