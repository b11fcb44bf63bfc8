import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultPaths, type Paths } from '../../observe/ebpf/collector/daemon.js';
import { collectorAvailability } from '../../observe/ebpf/engine.js';
import type { CliIO } from '../io.js';
import { collectorCommand } from './collector.js';

const available = await collectorAvailability();
if (!available.ok) console.warn(`collector command tests skipped: ${available.reason}`);

describe.skipIf(!available.ok)('agentguard collector start|status|stop', () => {
  // A collector of its own: stopping the host's would cut other runs short.
  const dir = mkdtempSync(path.join(tmpdir(), 'ag-collector-cmd-'));
  const paths: Paths = {
    ...defaultPaths(),
    socket: path.join(dir, 'c.sock'),
    lock: path.join(dir, 'c.lock'),
    log: path.join(dir, 'c.log'),
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) } as unknown as CliIO;

  it('starts one, says it runs and with which pid, stops it, and says it is gone', async () => {
    expect(await collectorCommand(io, 'status', paths)).toBe(1);
    expect(lines.pop()).toMatch(/^collector not running/);
    expect(await collectorCommand(io, 'start', paths)).toBe(0);
    const started = lines.pop() ?? '';
    expect(started).toMatch(new RegExp(`^collector running \\(pid (\\d+)\\) on ${paths.socket}$`));
    const pid = Number(/pid (\d+)/.exec(started)?.[1]);
    // A second start finds it running and starts no other.
    expect(await collectorCommand(io, 'start', paths)).toBe(0);
    expect(lines.pop()).toBe(started);
    expect(await collectorCommand(io, 'status', paths)).toBe(0);
    expect(await collectorCommand(io, 'stop', paths)).toBe(0);
    expect(lines.pop()).toBe(`collector (pid ${pid}) stopped`);
    const stat = () => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        return '';
      }
    };
    // Gone, or a zombie this test process (its parent) has not reaped yet.
    expect(stat() === '' || / Z /.test(stat())).toBe(true);
    expect(await collectorCommand(io, 'status', paths)).toBe(1);
  }, 60_000);

  it('refuses an unknown action with one sentence', async () => {
    await expect(collectorCommand(io, 'restart', paths)).rejects.toThrow(/start, status or stop/);
  });
});
