import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildRunReport, isolationWarning } from './build.js';
import {
  FIXTURE_PATCH_SECRET,
  FIXTURE_PROMPT,
  fixtureAnalysis,
  fixtureBundle,
  OUTPUT_MARKERS,
} from './test-fixture.js';
import { RUN_REPORT_KEY_ORDER } from './types.js';

describe('buildRunReport', () => {
  it('carries the verdict, score, identity and timing', () => {
    const report = buildRunReport(fixtureBundle(), fixtureAnalysis());
    expect(report.schema_version).toBe(1);
    expect(report.result).toBe('FAIL');
    expect(report.score).toBe(25);
    expect(report.failed_checks).toEqual(['tests-pass', 'scope']);
    expect(report.deductions.map((d) => d.points)).toEqual([50, 25]);
    expect(report.duration_ms).toBe(49_250);
    expect(report.task).toEqual({
      name: 'fix-off-by-one',
      prompt_sha256: createHash('sha256').update(FIXTURE_PROMPT).digest('hex'),
      prompt_file: '/bench/off-by-one/prompt.md',
      description: 'Fix the off-by-one error in src/range.ts',
    });
    expect(report.benchmark).toEqual({
      id: 'core/off-by-one',
      version: '1.2.0',
      category: 'bugfix',
      difficulty: 'easy',
      tags: ['typescript', 'scope'],
    });
    expect(report.diff.changed_files).toBe(4);
    expect(Object.keys(report).sort()).toEqual([...RUN_REPORT_KEY_ORDER].sort());
  });

  it('uses the display argv and drops command output and the raw prompt; the patch only as hunks', () => {
    const report = buildRunReport(fixtureBundle(), fixtureAnalysis());
    expect(report.commands[0]?.argv).toEqual(['sh', '-c', 'grep -r TODO src | wc -l', '<prompt>']);
    expect(report.commands[0]).not.toHaveProperty('stdout');
    expect(report.commands[0]).not.toHaveProperty('display_argv');
    // Command output reaches the report only as the last lines of a failing command, under `why`.
    const { why, diff, ...rest } = report;
    const text = JSON.stringify(rest);
    for (const secret of [FIXTURE_PROMPT, ...OUTPUT_MARKERS]) expect(text).not.toContain(secret);
    // The patch reaches the report only as the diff's bounded hunks, redacted like the rest.
    const { hunks, ...files } = diff;
    expect(JSON.stringify(files)).not.toContain('PATCH-MARKER-3');
    expect(hunks?.map((h) => h.path)).toEqual(['src/range.ts']);
    expect(JSON.stringify(hunks)).toContain('PATCH-MARKER-3');
    expect(JSON.stringify(report)).not.toContain(FIXTURE_PATCH_SECRET);
    expect(JSON.stringify(why)).not.toContain(FIXTURE_PROMPT);
    expect(why?.output.map((t) => [t.role, t.stream])).toEqual([
      ['agent', 'stderr'],
      ['agent', 'stdout'],
      ['tests', 'stderr'],
      ['tests', 'stdout'],
    ]);
  });

  it('gives nulls for absent benchmark metadata and leaves optional task fields out', () => {
    const bundle = fixtureBundle();
    const {
      benchmark_id: _i,
      benchmark_version: _v,
      category: _c,
      difficulty: _d,
      description: _s,
      prompt_file: _p,
      ...config
    } = bundle.config;
    const report = buildRunReport({ ...bundle, config: { ...config, tags: [] } }, fixtureAnalysis());
    expect(report.benchmark).toEqual({ id: null, version: null, category: null, difficulty: null, tags: [] });
    expect(Object.keys(report.task)).toEqual(['name', 'prompt_sha256']);
  });

  it('lists artifacts relative, sorted and once', () => {
    const report = buildRunReport(fixtureBundle(), fixtureAnalysis(), {
      artifacts: ['evidence/tests.json', './report.json', 'evidence\\commands.jsonl'],
    });
    expect(report.artifacts).toEqual([
      'evidence/commands.jsonl',
      'evidence/tests.json',
      'graph.json',
      'report.html',
      'report.json',
      'report.md',
      'report.sarif',
    ]);
  });

  it('never reports a negative duration', () => {
    const bundle = fixtureBundle({ started_at: '2025-03-01T10:15:00Z', finished_at: 'not a time' });
    expect(buildRunReport(bundle, fixtureAnalysis()).duration_ms).toBe(0);
  });
});

describe('isolationWarning', () => {
  const observation = fixtureBundle().observation;

  it('warns when the sandbox did not isolate the agent', () => {
    expect(isolationWarning(observation)).toBe(
      "sandbox 'local': the agent ran on the host without isolation",
    );
    expect(
      isolationWarning({
        ...observation,
        sandbox: { kind: 'container', isolated: false, detail: 'rootless failed' },
      }),
    ).toBe("sandbox 'container': the agent ran without isolation (rootless failed)");
  });

  it('is null for an isolating sandbox', () => {
    expect(isolationWarning({ ...observation, sandbox: { kind: 'bwrap', isolated: true } })).toBeNull();
  });
});
