import { describe, expect, it } from 'vitest';
import { SetupError } from '../errors.js';
import { selectTracer, startTracer } from './select-tracer.js';
import type { Tracer, TracerAvailability } from './types.js';

function fake(kind: 'ebpf' | 'strace', availability: TracerAvailability): Tracer {
  return {
    kind,
    available: async () => availability,
    start: async () => {
      throw new Error('not started in this test');
    },
  };
}
const ok = (v: string): TracerAvailability => ({ ok: true, version: v });
const no = (reason: string): TracerAvailability => ({ ok: false, reason, fix: `fix ${reason}` });

describe('selectTracer', () => {
  it('auto takes ebpf when it works', async () => {
    const c = await selectTracer('auto', {
      ebpf: fake('ebpf', ok('0.17')),
      strace: fake('strace', ok('6.1')),
    });
    expect(c.kind).toBe('ebpf');
    expect(c.fallbacks).toEqual([]);
  });

  it('auto falls back to strace and says why', async () => {
    const c = await selectTracer('auto', {
      ebpf: fake('ebpf', no('not root')),
      strace: fake('strace', ok('6.1')),
    });
    expect(c.kind).toBe('strace');
    expect(c.reason).toContain('not root');
    expect(c.fallbacks[0]).toMatchObject({ wanted: 'ebpf', used: 'strace' });
  });

  it('an explicit ebpf that cannot run degrades visibly, down to off', async () => {
    const c = await selectTracer('ebpf', {
      ebpf: fake('ebpf', no('no bpftrace')),
      strace: fake('strace', no('no strace')),
    });
    expect(c.kind).toBe('off');
    expect(c.tracer).toBeNull();
    expect(c.fallbacks[0]?.reason).toContain('no bpftrace');
    expect(c.fallbacks[0]?.reason).toContain('fix no strace');
  });

  it('an explicit strace never climbs up to ebpf', async () => {
    const c = await selectTracer('strace', {
      ebpf: fake('ebpf', ok('0.17')),
      strace: fake('strace', no('gone')),
    });
    expect(c.kind).toBe('off');
  });

  it('off is off, with no fallback recorded', async () => {
    const c = await selectTracer('off', {
      ebpf: fake('ebpf', ok('0.17')),
      strace: fake('strace', ok('6.1')),
    });
    expect(c).toMatchObject({ kind: 'off', tracer: null, fallbacks: [] });
  });

  describe('startTracer', () => {
    const registry = {
      ebpf: fake('ebpf', ok('0.17')),
      strace: fake('strace', ok('6.1')),
    };
    const session = (kind: 'ebpf' | 'strace') => ({
      kind,
      zeroWallMs: null,
      wrap: (s: never) => s,
      stop: async () => ({ events: [], lost_events: 0, version: kind, warnings: [] }),
    });

    it('under auto, a tracer whose start fails gives way to the next, with a warning and a fallback', async () => {
      const logged: string[] = [];
      const started = await startTracer(
        'auto',
        registry,
        async (t) => {
          if (t.kind === 'ebpf') throw new Error('mount: /sys/kernel/tracing: already mounted');
          return session(t.kind);
        },
        (l) => logged.push(l),
      );
      expect(started.kind).toBe('strace');
      expect(started.session?.kind).toBe('strace');
      expect(started.fallbacks).toEqual([
        {
          component: 'tracer',
          wanted: 'ebpf',
          used: 'strace',
          reason: 'ebpf did not start: mount: /sys/kernel/tracing: already mounted',
        },
      ]);
      expect(logged.join('\n')).toContain('warning: tracer strace instead of ebpf');
    });

    it('under auto, when no tracer starts, the run is untraced and says why', async () => {
      const started = await startTracer(
        'auto',
        registry,
        async (t) => {
          throw new Error(`${t.kind} broke`);
        },
        () => {},
      );
      expect(started).toMatchObject({ kind: 'off', session: null });
      expect(started.fallbacks.map((f) => f.used)).toEqual(['strace', 'off']);
    });

    it('under auto, where only this tracer could see the run, a failed start gives off, not the next', async () => {
      const tried: string[] = [];
      const started = await startTracer(
        'auto',
        registry,
        async (t) => {
          tried.push(t.kind);
          throw new Error('the collector is not built');
        },
        () => {},
        undefined,
        "sandbox 'container' runs each command under the engine's runtime: no other tracer sees it",
      );
      expect(tried).toEqual(['ebpf']);
      expect(started).toMatchObject({ kind: 'off', session: null });
      expect(started.fallbacks).toEqual([
        {
          component: 'tracer',
          wanted: 'ebpf',
          used: 'off',
          reason:
            "ebpf did not start: the collector is not built; sandbox 'container' runs each command under the engine's runtime: no other tracer sees it",
        },
      ]);
    });

    it('an explicitly requested tracer that does not start is a SetupError', async () => {
      await expect(
        startTracer(
          'ebpf',
          registry,
          async () => {
            throw new Error('bpftrace exited');
          },
          () => {},
        ),
      ).rejects.toThrow(SetupError);
    });
  });
});
