import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedactor } from './redact.js';
import { redactEvidenceFiles } from './redact-files.js';

const runDir = mkdtempSync(path.join(tmpdir(), 'ag-redact-run-'));
const outside = mkdtempSync(path.join(tmpdir(), 'ag-redact-outside-'));
afterAll(() => {
  rmSync(runDir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
const SECRET = 'canary-secret-value-1234';
const make = () => createRedactor({ secrets: [{ name: 'canary', value: SECRET, hashed: false }] });

describe('redactEvidenceFiles', () => {
  it('rewrites the regular files redacted and leaves a planted link alone: not read, not copied in', () => {
    mkdirSync(path.join(runDir, 'evidence'));
    writeFileSync(path.join(runDir, 'evidence', 'agent.log'), `the agent printed ${SECRET}\n`);
    const target = path.join(outside, 'secret.json');
    writeFileSync(target, `{"key": "${SECRET}", "outside": true}\n`);
    symlinkSync(target, path.join(runDir, 'evidence', 'leak.json'));
    symlinkSync(outside, path.join(runDir, 'guard'));
    redactEvidenceFiles(runDir, make);
    const log = readFileSync(path.join(runDir, 'evidence', 'agent.log'), 'utf8');
    expect(log).not.toContain(SECRET);
    expect(log).toContain('[REDACTED');
    // Before: statSync followed the link, and the redacted copy of the outside file replaced it.
    expect(lstatSync(path.join(runDir, 'evidence', 'leak.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(runDir, 'evidence', 'leak.json'))).toBe(target);
    expect(readFileSync(target, 'utf8')).toContain(SECRET);
  });
});
