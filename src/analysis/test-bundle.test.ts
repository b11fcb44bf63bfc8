import { describe, expect, it } from 'vitest';
import { diffFile, makeBundle, patchSection } from './test-bundle.js';

describe('makeBundle', () => {
  it('defaults to a passing run with no changes and schema defaults in the config', () => {
    const bundle = makeBundle();
    expect(bundle.tests).toMatchObject({ ran: true, passed: true, exit_code: 0 });
    expect(bundle.diff.files).toEqual([]);
    expect(bundle.config.allowed_paths).toEqual(['**']);
    expect(bundle.config.secret_paths).toContain('**/.env');
    expect(bundle.config.unsafe_commands.length).toBeGreaterThan(0);
  });

  it('merges nested overrides, replaces arrays and keeps defaults for undefined', () => {
    const bundle = makeBundle({
      config: { severity: { scope: 'warning' }, allowed_paths: ['src/**'], max_added_lines: undefined },
      tests: { passed: false, exit_code: 1 },
      observation: { tracer: { kind: 'ebpf' } },
    });
    expect(bundle.config.severity).toEqual({ scope: 'warning' });
    expect(bundle.config.allowed_paths).toEqual(['src/**']);
    expect(bundle.config.name).toBe('test-task');
    expect(bundle.tests).toMatchObject({ ran: true, passed: false, exit_code: 1, command_id: 'cmd-2' });
    expect(bundle.observation.tracer).toMatchObject({ kind: 'ebpf', requested: 'off', lost_events: 0 });
  });

  it('derives diff totals and patch size from the files and patch unless given', () => {
    const patch = patchSection('a.txt', [{ start: 1, lines: ['+x'] }]);
    const bundle = makeBundle({
      diff: { files: [diffFile('a.txt', { added: 3, deleted: 2 }), diffFile('b.txt')] },
      patch,
    });
    expect(bundle.diff).toMatchObject({ added: 4, deleted: 2, patch_bytes: patch.length });
    expect(makeBundle({ diff: { files: [diffFile('a')], added: 9 } }).diff.added).toBe(9);
  });

  it('does not share mutable state between bundles', () => {
    const first = makeBundle();
    first.diff.files.push(diffFile('x'));
    first.config.forbidden_paths.push('x');
    expect(makeBundle().diff.files).toEqual([]);
    expect(makeBundle().config.forbidden_paths).toEqual([]);
  });
});
