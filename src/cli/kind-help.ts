import { SANDBOX_KINDS, TRACER_CHOICES } from '../evidence/kinds.js';
import { SANDBOXES } from '../sandbox/index.js';
import { automaticSandboxes } from '../sandbox/select-sandbox.js';

/** `a, b or c`. */
function orList(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** `--sandbox` and `--tracer` help texts, from the kind names and the sandbox registry. */
export const SANDBOX_OPTION = orList(SANDBOX_KINDS);
export const TRACER_OPTION = orList(TRACER_CHOICES);
/** The sandbox used when none is configured and it works here. */
export const DEFAULT_SANDBOX = automaticSandboxes(SANDBOXES)[0];
