import { describe, expect, it } from 'vitest';
import { runCommand } from './run-command.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
// A wrapper that waits for its child, like the sandbox bridge; the child stops it and exits 7.
const wrapper = ['sh', '-c', 'sh -c "kill -STOP \\$PPID; exit 7"; exit $?', 'fake-bridge'];

describe('a stopped harness wrapper does not hold the exit hostage', () => {
  it("records the child's real exit instead of waiting for the timeout", async () => {
    const o = await runCommand({
      spec: { argv: wrapper, cwd: '/', env },
      timeoutMs: 20_000,
      maxOutputBytes: 1024,
      isWrapper: (argv) => argv.includes('fake-bridge'),
      wrapperPollMs: 100,
    });
    expect(o.timed_out).toBe(false);
    expect(o.exit_code).toBe(7);
    expect(o.duration_ms).toBeLessThan(10_000);
  });

  it('leaves processes that are not wrappers alone (then the timeout decides)', async () => {
    const o = await runCommand({
      spec: { argv: wrapper, cwd: '/', env },
      timeoutMs: 1500,
      killGraceMs: 100,
      maxOutputBytes: 1024,
      isWrapper: () => false,
      wrapperPollMs: 100,
    });
    expect(o.timed_out).toBe(true);
  });
});
