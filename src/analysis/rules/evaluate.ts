import type { NetworkRecord, SysEvent } from '../../evidence/types.js';
import { compileGlobs } from '../path-glob.js';
import { BoundPorts } from './bound-ports.js';
import { graderReachFromPatch } from './grader-reach-patch.js';
import { createMatcher } from './matcher.js';
import { persistenceFromPatch } from './persistence-patch.js';
import type { Alert, RuleContext, RuleInput, RuleSet } from './types.js';

/**
 * The batch form: syscalls and network records merged by time (a record goes after the events at
 * or before its time), then the diff's install-hook findings and the canaries written, then the final state's changes. Gives exactly what a streaming
 * matcher fed in the same order would, except that it knows every port the run bound from the
 * start (`addr.listened`). Pure.
 */
export function evaluateRules(input: RuleInput, ruleset: RuleSet, ctx: RuleContext): Alert[] {
  // Every bind of the run first: a client that retries until its test server is up connects to
  // the port before the server has bound it.
  const ports = new BoundPorts(ctx.bindsRecorded === true);
  for (const e of input.syscalls) ports.observe(e);
  const matcher = createMatcher(ruleset, ctx, ports);
  for (const e of input.before ?? []) matcher.learn(e);
  for (const item of mergeByTime(input.syscalls, input.network ?? [])) {
    if ('seq' in item) matcher.onEvent(item);
    else matcher.onRecord(item);
  }
  const tests = compileGlobs([...(input.testPaths ?? [])]);
  const findings = input.patch
    ? [
        ...persistenceFromPatch(input.patch, input.files ?? []),
        ...graderReachFromPatch(input.patch, input.files ?? [], (f) => tests(f) !== null),
      ]
    : [];
  matcher.onPatch([...findings, ...(input.written ?? [])]);
  if (input.finalState) matcher.onFinalState(input.finalState);
  return matcher.alerts();
}

/** Syscalls in their order, network records slotted in by timestamp. */
export function mergeByTime(
  syscalls: readonly SysEvent[],
  network: readonly NetworkRecord[],
): (SysEvent | NetworkRecord)[] {
  if (network.length === 0) return [...syscalls];
  const records = [...network].sort((a, b) => a.ts - b.ts);
  const out: (SysEvent | NetworkRecord)[] = [];
  let j = 0;
  for (const e of syscalls) {
    while (j < records.length && (records[j] as NetworkRecord).ts < e.ts)
      out.push(records[j++] as NetworkRecord);
    out.push(e);
  }
  while (j < records.length) out.push(records[j++] as NetworkRecord);
  return out;
}
