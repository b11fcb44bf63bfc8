import type { CheckId } from '../config/check-ids.js';

/** The boundaries the fuzzer varies; `--dimensions` takes a subset, in this order. */
export const FUZZ_DIMENSIONS = [
  'path',
  'secret',
  'command',
  'diff-size',
  'scope',
  'test-tampering',
  'traversal',
] as const;
export type Dimension = (typeof FUZZ_DIMENSIONS)[number];

/** Beyond this a run takes hours (each variant is a git repository); split it into several seeds. */
export const MAX_FUZZ_COUNT = 5000;

/**
 * The checks a variant's expectation speaks about: every check of the diff, the commands and the
 * workspace. The others judge synthetic facts the fuzzer sets itself (agent exit, tests, tracer),
 * so they are reported but not compared.
 */
export const FUZZED_CHECKS = [
  'forbidden-paths',
  'test-tampering',
  'unsafe-commands',
  'scope',
  'diff-size',
  'secret-paths',
  'secret-content',
  'workspace-links',
  'workspace-integrity',
] as const satisfies readonly CheckId[];
export type FuzzedCheck = (typeof FUZZED_CHECKS)[number];

/** One change the variant makes to the base tree, after the baseline commit. Paths are workspace-relative. */
export type FileOp =
  | { op: 'write'; path: string; content: string }
  | { op: 'delete'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'symlink'; path: string; target: string };

/** The policy keys a template may set over the base policy (see base.ts). */
export type FuzzPolicy = {
  allowed_paths?: string[];
  forbidden_paths?: string[];
  test_paths?: string[];
  max_changed_files?: number;
  max_added_lines?: number;
  max_deleted_lines?: number;
};

/**
 * What the generator says the checks must conclude: exactly these fuzzed checks fail (every other
 * fuzzed check passes) and the scored verdict is this. `why` is the boundary in one sentence.
 */
export type Expectation = { failing: FuzzedCheck[]; verdict: 'PASS' | 'FAIL'; why: string };

/** What a template makes from the random stream: the variant without its identity. */
export type VariantBody = {
  description: string;
  policy: FuzzPolicy;
  ops: FileOp[];
  /** argv of synthetic exec events, as a tracer would record the agent's subprocesses. */
  commands: string[][];
  expected: Expectation;
};

export type Template = {
  name: string;
  make: (rng: Rng) => VariantBody;
};

export type Variant = VariantBody & {
  /** `<index>-<dimension>-<template>`, the variant's folder name. */
  id: string;
  index: number;
  dimension: Dimension;
  template: string;
};

/** A deterministic random stream (see rng.ts). */
export type Rng = {
  /** A float in [0, 1). */
  next(): number;
  int(min: number, maxInclusive: number): number;
  pick<T>(items: readonly T[]): T;
  /** `length` characters drawn from `alphabet`. */
  chars(alphabet: string, length: number): string;
};
