import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Wall seconds of the suite's slow files (a full `npm test` on the two-core machine, read from
 * vitest's results cache, node_modules/.vite/vitest/<hash>/results.json). Only their order matters:
 * refresh them when a file's time changes by a lot, and add a new file that takes over ~10 s.
 */
export const SLOW_FILE_SECONDS: Readonly<Record<string, number>> = {
  'test/e2e/microvm-ebpf.test.ts': 427,
  'test/rule-cases/rule-cases.test.ts': 196,
  'test/rule-cases/rule-cases-ebpf.test.ts': 176,
  'test/e2e/provenance.test.ts': 169,
  'test/e2e/python-projects.test.ts': 149,
  'test/collector/protocol.test.ts': 142,
  'test/attacks/attacks.test.ts': 136,
  'test/e2e/microvm-run-user.test.ts': 131,
  'test/e2e/real-agents.test.ts': 123,
  'test/e2e/queue-hostile.test.ts': 108,
  'test/e2e/terminal.test.ts': 89,
  'test/e2e/microvm.test.ts': 88,
  'test/e2e/real-repos.test.ts': 88,
  'test/e2e/pack.test.ts': 80,
  'test/e2e/model-relay.test.ts': 76,
  'test/e2e/real-repo-shapes.test.ts': 73,
  'test/e2e/corrupt-input.test.ts': 65,
  'test/e2e/queue.test.ts': 63,
  'test/e2e/diagnostics-mutations.test.ts': 61,
  'src/observe/ebpf/collector/collector-session.test.ts': 49,
  'test/e2e/batch.test.ts': 42,
  'test/e2e/lifecycle.test.ts': 37,
  'test/e2e/rootless.test.ts': 36,
  'test/e2e/benchmark-pack-roundtrip.test.ts': 32,
  'src/agents/profiles/real-profiles.test.ts': 29,
  'test/e2e/ci.test.ts': 28,
  'test/e2e/benchmark-pack.test.ts': 23,
  'test/e2e/setup-dependencies.test.ts': 23,
  'test/e2e/setup-phase.test.ts': 22,
  'test/html/view.test.ts': 22,
  'test/e2e/grader-sentinel.test.ts': 22,
  'test/e2e/lockfile-hashes.test.ts': 22,
  'test/e2e/grader-reach.test.ts': 20,
  'test/e2e/wall-spellings.test.ts': 20,
  'src/observe/ebpf/ebpf-tracer.test.ts': 19,
  'test/e2e/queue-refusals.test.ts': 19,
  'test/e2e/agent-misbehaviour.test.ts': 18,
  'src/fuzz/run-fuzz.test.ts': 18,
  'test/e2e/bpftrace-refused.test.ts': 16,
  'test/e2e/provenance-metamorphic.test.ts': 15,
  'src/observe/ebpf/bpftrace-script.test.ts': 13,
  'src/sandbox/container.test.ts': 13,
  'test/e2e/downloaded-code.test.ts': 12,
  'test/e2e/bad-input.test.ts': 12,
  'test/e2e/audit.test.ts': 12,
  'test/e2e/run.test.ts': 12,
  'test/e2e/doctor.test.ts': 12,
  'test/e2e/ci-trust.test.ts': 11,
  'test/html/batch-page.test.ts': 10,
  'test/e2e/provenance-history.test.ts': 10,
  'test/e2e/pack-floor.test.ts': 10,
  'test/e2e/protected-files.test.ts': 10,
};

/**
 * The suite's order: longest files first, so that no long file starts near the end and runs alone
 * on one core while the other idles. vitest orders by the durations in its results cache, which a
 * fresh clone (CI) lacks; it then orders by file size, and a short file can run long (the rule
 * cases' runner is 17 lines for 165 runs, the microVM file 106 lines for 427 s). A file's time is
 * its cached duration where vitest has one, else its entry in SLOW_FILE_SECONDS; files known by
 * neither keep vitest's order (failed first, then larger first) after them. Projects stay grouped
 * as vitest groups them (system before unit), so the unit tier's many short files fill the end.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = new Map(base.map((spec, i) => [spec, i]));
    const seconds = (spec: TestSpecification): number => {
      const file = path.relative(this.ctx.config.root, spec.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      if (cached && !cached.failed && cached.duration > 0) return cached.duration / 1000;
      return SLOW_FILE_SECONDS[file] ?? 0;
    };
    const group = (spec: TestSpecification) =>
      `${spec.project.config.sequence.groupOrder}\0${spec.project.name}`;
    return [...base].sort((a, b) => {
      const ga = group(a);
      const gb = group(b);
      if (ga !== gb) return (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
      return seconds(b) - seconds(a) || (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
    });
  }
}
