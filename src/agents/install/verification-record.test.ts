import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installedAgents } from './installed-agents.js';
import {
  formatVerification,
  readVerification,
  recordVerification,
  verificationsDir,
} from './verification-record.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
function cache(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'agentguard-verified-'));
  temps.push(d);
  return d;
}

describe('verification records beside the agent cache', () => {
  it('reads back what was recorded, and the newest record replaces the older one', () => {
    const dir = cache();
    expect(readVerification(dir, 'pi')).toEqual({ status: 'never' });
    expect(formatVerification(readVerification(dir, 'pi'))).toBe('never');
    const at = new Date('2026-12-01T10:00:00Z');
    recordVerification(dir, { agent: 'pi', version: '0.73.0', by: 'agents verify', worked: ['exit 0'], at });
    recordVerification(dir, {
      agent: 'pi',
      version: '0.73.1',
      by: 'e2e',
      worked: ['tests passed'],
      at: new Date('2026-12-03T09:30:00Z'),
    });
    const state = readVerification(dir, 'pi');
    expect(state).toMatchObject({
      status: 'verified',
      record: { agent: 'pi', version: '0.73.1', by: 'e2e', verified_at: '2026-12-03T09:30:00.000Z' },
    });
    expect(formatVerification(state)).toBe('2026-12-03 (0.73.1)');
    // One file per agent and no temporary file left behind.
    expect(readdirSync(verificationsDir(dir))).toEqual(['pi.json']);
    expect(readVerification(dir, 'codex')).toEqual({ status: 'never' });
  });

  it('a damaged record or one of another agent is unreadable, not "never" and not verified', () => {
    const dir = cache();
    mkdirSync(verificationsDir(dir), { recursive: true });
    writeFileSync(path.join(verificationsDir(dir), 'pi.json'), '{"schema_version": 1, "agent": "pi"');
    expect(readVerification(dir, 'pi')).toMatchObject({ status: 'unreadable' });
    // A record copied under another agent's name does not verify that agent.
    const codex = recordVerification(dir, {
      agent: 'codex',
      version: null,
      by: 'x',
      worked: [],
      at: new Date(),
    });
    copyFileSync(codex, path.join(verificationsDir(dir), 'claude-code.json'));
    expect(readVerification(dir, 'claude-code')).toMatchObject({ status: 'unreadable' });
    expect(formatVerification(readVerification(dir, 'claude-code'))).toBe('unreadable');
  });

  it('the records folder is not taken for an installed agent', () => {
    const dir = cache();
    recordVerification(dir, { agent: 'pi', version: '0.73.1', by: 'x', worked: [], at: new Date() });
    expect(installedAgents(dir)).toEqual([]);
  });
});
