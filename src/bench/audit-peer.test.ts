import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../exec/run-command.js';
import { AuditPeer } from './audit-peer.js';
import { AUDIT_KEY, parseAuditStatus } from './audit-rules.js';

const auditctl = (...args: string[]) => spawnSync('auditctl', args, { encoding: 'utf8' }).stdout ?? '';
const status = () => parseAuditStatus(auditctl('-s'));
const usable =
  process.getuid?.() === 0 && !spawnSync('auditd', ['-h']).error && status() !== null && status()?.pid === 0;

const BENCH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../dist/bench/tracer-overhead.js',
);

// Host-wide state: these run only where no audit daemon runs already, one after the other (one
// file), and check that the host is left as found.
describe.skipIf(!usable)('the auditd peer (root, Debian auditd)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-audit-peer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records the workload’s calls only, counts its opens of the target, and puts the host back', async () => {
    const before = status();
    const rulesBefore = auditctl('-l');
    const peer = await AuditPeer.start(path.join(dir, 'auditd'), 'target.txt');
    if (typeof peer === 'string') throw new Error(peer);
    try {
      expect(status()?.pid).toBeGreaterThan(0);
      const work = path.join(dir, 'work');
      spawnSync('mkdir', ['-p', work]);
      writeFileSync(path.join(work, 'target.txt'), 'x\n');
      const session = await peer
        .tracer()
        .start({ run_id: 'audit-peer-test', scratch_dir: dir, workspace: work });
      expect(auditctl('-l')).toContain(`key=${AUDIT_KEY}`);
      // Outside the workload: must not be counted.
      spawnSync('cat', [path.join(work, 'target.txt')]);
      const outcome = await runCommand({
        spec: session.wrap({
          argv: ['/bin/sh', '-c', 'cat target.txt target.txt >/dev/null; cat target.txt >/dev/null'],
          cwd: work,
          env: { PATH: '/usr/bin:/bin' },
        }),
        timeoutMs: 30_000,
        maxOutputBytes: 10_000,
      });
      expect(outcome.exit_code).toBe(0);
      const output = await session.stop();
      expect(output.target_opens).toBe(3);
      // sh, two cats: at least their execs and opens.
      expect(output.events).toBeGreaterThanOrEqual(5);
      expect(output.warnings).toEqual([]);
      expect(auditctl('-l')).not.toContain(AUDIT_KEY);
      expect(status()?.enabled).toBe(before?.enabled);
    } finally {
      await peer.close();
    }
    const after = status();
    expect({ ...after, lost: 0 }).toEqual({ ...before, lost: 0 });
    expect(auditctl('-l')).toBe(rulesBefore);
  });

  it('the tracer bench stopped with SIGINT removes its rules, restores the settings and stops auditd', async () => {
    if (!existsSync(BENCH)) throw new Error(`${BENCH} is missing: run 'npm run build' first`);
    const before = status();
    const rulesBefore = auditctl('-l');
    const child = spawn(
      process.execPath,
      [BENCH, '--engines', 'auditd', '--reps', '1', '--window-runs', '2000', '--no-sandbox'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Wait until the bench's peer records: its rules (login uid from its pid) are loaded.
    const auid = `auid=${900_000 + ((child.pid ?? 0) % 100_000)}`;
    const deadline = Date.now() + 60_000;
    while (!auditctl('-l').includes(auid)) {
      if (Date.now() > deadline) throw new Error(`the bench never loaded its audit rules: ${stderr}`);
      await sleep(20);
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('audit state restored');
    expect(auditctl('-l')).toBe(rulesBefore);
    // auditd gets SIGTERM and unregisters as it exits.
    const gone = Date.now() + 10_000;
    while (status()?.pid !== 0 && Date.now() < gone) await sleep(50);
    expect({ ...status(), lost: 0 }).toEqual({ ...before, lost: 0 });
  });
});
