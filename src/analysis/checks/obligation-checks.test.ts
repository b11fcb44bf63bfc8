import { describe, expect, it } from 'vitest';
import type { EvidenceBundle } from '../../analysis/evidence-bundle.js';
import type { SysEvent } from '../../evidence/types.js';
import { makeBundle } from '../test-bundle.js';
import { gradingFiles } from './grading-files.js';
import { skillCoverage } from './skill-coverage.js';

const REPO = '/runs/run-test/repo';
let seq = 0;
const open = (path: string): SysEvent => ({
  seq: seq++,
  ts: seq,
  pid: 10,
  ppid: 0,
  exe: '/usr/bin/cat',
  kind: 'open',
  syscall: 'openat',
  path,
  access: 'read',
  result: 3,
});

function traced(paths: string[], over: (b: EvidenceBundle) => void): EvidenceBundle {
  const b = makeBundle();
  b.observation.tracer = { requested: 'strace', kind: 'strace', lost_events: 0 };
  b.syscalls = [
    {
      seq: seq++,
      ts: 0,
      pid: 10,
      ppid: 0,
      exe: '/bin/sh',
      kind: 'exec',
      syscall: 'execve',
      path: '/bin/sh',
      argv: ['sh', 'agent.sh'],
      result: 0,
    },
    ...paths.map(open),
  ];
  over(b);
  return b;
}

describe('grading-files', () => {
  it('fails when a grader-only file was read, and names it', () => {
    const r = gradingFiles.run(
      traced([`${REPO}/hidden/expected.json`], (b) => (b.config.grader_paths = ['hidden/**'])),
    );
    expect(r.passed).toBe(false);
    expect(JSON.stringify(r.evidence)).toContain('hidden/expected.json');
  });

  it("fails on a read of the template's copy of a grader file (the workspace has none)", () => {
    const r = gradingFiles.run(
      traced(['/bench/task/repo/hidden/expected.json'], (b) => {
        b.config.grader_paths = ['hidden/**'];
        b.workspace.template = '/bench/task/repo';
      }),
    );
    expect(r.passed).toBe(false);
    expect(JSON.stringify(r.evidence)).toContain('/bench/task/repo/hidden/expected.json');
  });

  it('passes when only visible tests were read', () => {
    const r = gradingFiles.run(
      traced([`${REPO}/test/visible.test.js`], (b) => (b.config.grader_paths = ['hidden/**'])),
    );
    expect(r.passed).toBe(true);
  });

  it('fails when a grader path names a file and that file was opened for reading', () => {
    const r = gradingFiles.run(traced([`${REPO}/README.md`], (b) => (b.config.grader_paths = ['README.md'])));
    expect(r.passed).toBe(false);
    expect(r.message).toContain('README.md');
    const nested = gradingFiles.run(
      traced([`${REPO}/answers/key.txt`], (b) => (b.config.grader_paths = ['answers/key.txt'])),
    );
    expect(nested.passed).toBe(false);
  });

  it('does not count listing a grader folder, written as a folder or shown to be one', () => {
    for (const g of ['hidden/**', 'hidden/']) {
      const r = gradingFiles.run(traced([`${REPO}/hidden`], (b) => (b.config.grader_paths = [g])));
      expect(r.passed, g).toBe(true);
    }
    // A bare name with something opened below it is a folder: listing it is not a read, the file below is.
    const listed = gradingFiles.run(
      traced([`${REPO}/hidden`, `${REPO}/hidden/a.txt`], (b) => (b.config.grader_paths = ['hidden'])),
    );
    expect(listed.passed).toBe(false);
    expect(listed.evidence.map((e) => e.path)).toEqual([expect.stringMatching(/hidden\/a\.txt$/)]);
  });

  it('says it could not measure without a tracer', () => {
    const b = makeBundle();
    b.config.grader_paths = ['hidden/**'];
    expect(gradingFiles.run(b).message).toContain('not measured');
  });
});

describe('skill-coverage', () => {
  const skills = [`${REPO}/.agents/skills/cite/SKILL.md`, `${REPO}/.agents/skills/cite/check.py`];

  it('passes when the guidance was read', () => {
    const r = skillCoverage.run(traced(skills, (b) => (b.skills = skills)));
    expect(r.passed).toBe(true);
  });

  it('fails when the run ignored the skill', () => {
    const r = skillCoverage.run(traced([`${REPO}/src/a.js`], (b) => (b.skills = skills)));
    expect(r.passed).toBe(false);
  });

  it('passes trivially for a task without skills', () => {
    expect(skillCoverage.run(makeBundle()).message).toBe('the task ships no skills');
  });
});
