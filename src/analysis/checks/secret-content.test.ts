import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../evidence/secret-formats.js';
import type { WrittenScan } from '../../evidence/types.js';
import { runRedactor } from '../secrets/run-redactor.js';
import { diffFile, makeBundle, makeConfig, patchSection } from '../test-bundle.js';
import { secretContent } from './secret-content.js';

// Assembled at run time so the source holds no complete credential-looking string.
const AWS_KEY = `${'AKIA'}Q3EGRV7XK2LMN4PZ`;
const LITERAL = 'canary-7f3e9a-do-not-ship';

const twoHunks = patchSection('src/config.ts', [
  { start: 2, lines: [' const a = 1;', '+const b = 2;'] },
  { start: 50, lines: [' // keys', '+const region = "eu";', `+const key = "${AWS_KEY}";`, ' export {};'] },
]);

describe('secret-content', () => {
  it('passes with a fixed message when every detector is turned off', () => {
    const bundle = makeBundle({
      config: { secret_presets: [] },
      diff: { files: [diffFile('src/config.ts', { added: 3 })] },
      patch: twoHunks,
    });
    expect(secretContent.run(bundle)).toEqual({
      id: 'secret-content',
      passed: true,
      message: 'no secret-content detectors configured',
      evidence: [],
    });
  });

  it('finds a preset match in a later hunk with the right line and never leaks the value', () => {
    const bundle = makeBundle({
      config: { secret_presets: ['aws-access-key', 'github-token'] },
      diff: { files: [diffFile('src/config.ts', { added: 3 })] },
      patch: twoHunks,
    });
    const result = secretContent.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toBe(
      '1 possible secret in added lines of src/config.ts (detectors: aws-access-key)',
    );
    expect(result.evidence).toHaveLength(1);
    expect(result.evidence[0]).toMatchObject({ path: 'src/config.ts', line: 52 });
    expect(result.evidence[0]?.detail).toMatch(
      /^detector aws-access-key \(preset\), fingerprint [0-9a-f]{8}$/,
    );
    expect(JSON.stringify(result)).not.toContain(AWS_KEY);
    expect(JSON.stringify(result)).not.toContain('AKIA');
  });

  it('is on by default with the high-precision presets', () => {
    const bundle = makeBundle({
      diff: { files: [diffFile('src/config.ts', { added: 3 })] },
      patch: twoHunks,
    });
    expect(secretContent.run(bundle)).toMatchObject({ passed: false, evidence: [{ line: 52 }] });
  });

  it('finds the redaction markers of its own detectors in a stored patch, with the same evidence', () => {
    const config = {
      secret_presets: ['aws-access-key' as const],
      secret_detectors: [{ name: 'canary', literal: LITERAL }],
    };
    const lines = [`+const key = "${AWS_KEY}";`, `+token: ${LITERAL}`];
    const raw = patchSection('a.ts', [{ start: 1, lines }], 'added');
    const diff = { files: [diffFile('a.ts', { status: 'added', added: 2 })] };
    const redactor = runRedactor(makeConfig(config), null);
    const stored = redactor.text(raw);
    expect(stored).not.toContain(AWS_KEY);
    expect(stored).not.toContain(LITERAL);
    const before = secretContent.run(makeBundle({ config, diff, patch: raw }));
    const after = secretContent.run(makeBundle({ config, diff, patch: stored }));
    expect(after).toEqual(before);
    expect(after.passed).toBe(false);
    // Under a policy without those detectors the markers are not findings.
    expect(
      secretContent.run(makeBundle({ config: { secret_presets: ['jwt'] }, diff, patch: stored })).passed,
    ).toBe(true);
  });

  it('finds a canary token (or its marker) in added lines', () => {
    const token = 'npm_0123456789abcdef0123';
    const canaries = { home: '/root', canaries: [{ kind: 'npm-token', path: '.npmrc', token }] };
    const patch = patchSection('notes.md', [{ start: 1, lines: [`+t ${token}`] }], 'added');
    const diff = { files: [diffFile('notes.md', { status: 'added' })] };
    const stored = runRedactor(makeConfig({}), canaries).text(patch);
    expect(stored).toContain('[REDACTED:canary-npm-token:');
    for (const p of [patch, stored]) {
      const result = secretContent.run(makeBundle({ diff, patch: p, canaries }));
      expect(result.evidence).toEqual([
        {
          path: 'notes.md',
          line: 1,
          detail: `detector canary-npm-token (canary), fingerprint ${fingerprint(token)}`,
        },
      ]);
    }
  });

  it('finds a literal detector without printing the literal or a fingerprint of it', () => {
    const patch = patchSection('notes.md', [{ start: 1, lines: [`+token: ${LITERAL}`] }], 'added');
    const bundle = makeBundle({
      config: { secret_detectors: [{ name: 'canary', literal: LITERAL }] },
      diff: { files: [diffFile('notes.md', { status: 'added' })] },
      patch,
    });
    const result = secretContent.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.evidence).toEqual([{ path: 'notes.md', line: 1, detail: 'detector canary (literal)' }]);
    expect(JSON.stringify(result)).not.toContain(LITERAL);
  });

  it('uses pattern detectors, and ignores removed and context lines', () => {
    const patch = patchSection('a.txt', [{ start: 1, lines: ['-INTERNAL-1234', ' INTERNAL-5678', '+fine'] }]);
    const config = { secret_detectors: [{ name: 'internal-id', pattern: 'INTERNAL-\\d{4}' }] };
    const clean = makeBundle({ config, diff: { files: [diffFile('a.txt')] }, patch });
    expect(secretContent.run(clean)).toMatchObject({
      passed: true,
      message: 'no secrets in 1 added line of 1 file',
    });
    const dirty = makeBundle({
      config,
      diff: { files: [diffFile('a.txt')] },
      patch: patchSection('a.txt', [{ start: 9, lines: ['+id INTERNAL-9999'] }]),
    });
    expect(secretContent.run(dirty)).toMatchObject({ passed: false, evidence: [{ path: 'a.txt', line: 9 }] });
  });

  it('fails closed on a truncated patch even when what it saw is clean', () => {
    const bundle = makeBundle({
      config: { secret_presets: ['aws-access-key'] },
      diff: { files: [diffFile('a.txt'), diffFile('b.txt')], patch_truncated: true, patch_bytes: 1000 },
      patch: patchSection('a.txt', [{ start: 1, lines: ['+harmless'] }]),
    });
    const result = secretContent.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toBe('the scan was incomplete: the patch was cut at 1000 bytes');
  });

  it('fails closed when the byte budget runs out', () => {
    const lines = Array.from({ length: 10 }, (_, i) => `+line ${i} of text`);
    const bundle = makeBundle({
      config: { secret_presets: ['jwt'], secret_scan_max_bytes: 40 },
      diff: { files: [diffFile('big.txt', { added: 10 })] },
      patch: patchSection('big.txt', [{ start: 1, lines }]),
    });
    const result = secretContent.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toBe('the scan was incomplete: the scan budget of 40 bytes ran out at big.txt:3');
    expect(result.evidence[0]).toMatchObject({ path: 'big.txt', line: 3 });
  });

  it('fails closed when a changed text file has no hunk in the patch', () => {
    const bundle = makeBundle({
      config: { secret_presets: ['jwt'] },
      diff: { files: [diffFile('a.txt'), diffFile('missing.txt', { added: 4 })] },
      patch: patchSection('a.txt', [{ start: 1, lines: ['+ok'] }]),
    });
    const result = secretContent.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toContain('1 changed file had no hunk in the patch (missing.txt)');
    expect(result.evidence).toContainEqual({
      path: 'missing.txt',
      detail: 'no hunk in the patch; not scanned',
    });
  });

  it('lists binary files as not scanned without failing for them', () => {
    const bundle = makeBundle({
      config: { secret_presets: ['jwt'] },
      diff: {
        files: [
          diffFile('a.txt'),
          diffFile('logo.png', { binary: true, added: 0 }),
          diffFile('moved.txt', { status: 'renamed', old_path: 'old.txt', added: 0 }),
          diffFile('gone.txt', { status: 'deleted', added: 0, deleted: 3 }),
        ],
      },
      patch: patchSection('a.txt', [{ start: 1, lines: ['+ok'] }]),
    });
    const result = secretContent.run(bundle);
    expect(result.passed).toBe(true);
    expect(result.message).toBe('no secrets in 1 added line of 1 file; 1 binary file not scanned');
    expect(result.evidence).toEqual([{ path: 'logo.png', detail: 'binary file; content not scanned' }]);
  });

  it('fails closed on a pattern detector that does not compile', () => {
    const bundle = makeBundle({ config: { secret_detectors: [{ name: 'broken', pattern: '[' }] } });
    const result = secretContent.run(bundle);
    expect(result.passed).toBe(false);
    expect(result.message).toContain('1 detector could not be used (broken)');
  });

  it('reports several findings across files and bounds the evidence', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `+k${i} = ${AWS_KEY}`);
    const bundle = makeBundle({
      config: { secret_presets: ['aws-access-key'] },
      diff: { files: [diffFile('keys.txt', { status: 'added', added: 60 })] },
      patch: patchSection('keys.txt', [{ start: 1, lines }], 'added'),
    });
    const result = secretContent.run(bundle);
    expect(result.evidence).toHaveLength(50);
    expect(result.message).toBe('60 possible secrets in added lines of keys.txt (detectors: aws-access-key)');
    expect(result.evidence[49]).toMatchObject({ line: 50 });
  });
});

describe('secret-content: bytes the patch has no lines for', () => {
  const written = (over: Partial<WrittenScan>): WrittenScan => ({
    scanned: 1,
    findings: [],
    unscanned: [],
    ...over,
  });

  it('fails on a canary found in a binary file, naming the file, detector and encoding', () => {
    const bundle = makeBundle({
      diff: {
        files: [{ path: 'fixtures/blob.bin', status: 'added', added: 0, deleted: 0, binary: true }],
        written_scan: written({
          findings: [
            {
              path: 'fixtures/blob.bin',
              where: 'binary',
              detector: 'canary-ssh-key',
              kind: 'canary',
              fingerprint: 'abcd1234',
              encoding: 'base64',
            },
          ],
        }),
      },
    });
    const r = secretContent.run(bundle);
    expect(r.passed).toBe(false);
    expect(r.evidence).toContainEqual({
      path: 'fixtures/blob.bin',
      detail: 'detector canary-ssh-key (canary), fingerprint abcd1234, base64, in a binary file',
    });
  });

  it('passes a scanned binary fixture with no secret, and fails closed on what could not be scanned', () => {
    const files = [
      { path: 'fixtures/blob.bin', status: 'added' as const, added: 0, deleted: 0, binary: true },
    ];
    expect(secretContent.run(makeBundle({ diff: { files, written_scan: written({}) } })).passed).toBe(true);
    const unscanned = written({ unscanned: [{ path: 'v/.git/objects/pack/p.pack', reason: 'packed' }] });
    const r = secretContent.run(makeBundle({ diff: { files, written_scan: unscanned } }));
    expect(r.passed).toBe(false);
    expect(r.message).toContain('1 written file could not be scanned (v/.git/objects/pack/p.pack)');
  });
});
