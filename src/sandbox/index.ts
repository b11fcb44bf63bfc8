import type { SandboxKind } from '../evidence/types.js';
import { bwrapSandbox } from './bwrap.js';
import { containerSandbox } from './container.js';
import { localSandbox } from './local.js';
import { microvmSandbox } from './microvm/microvm.js';
import type { Sandbox } from './types.js';

/** Every sandbox by name; the union type makes the compiler demand one per kind. */
export const SANDBOXES: Record<SandboxKind, Sandbox> = {
  bwrap: bwrapSandbox,
  container: containerSandbox,
  local: localSandbox,
  microvm: microvmSandbox,
};
