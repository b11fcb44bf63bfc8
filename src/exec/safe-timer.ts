/** Node's timers hold a signed 32-bit delay: anything longer fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export type SafeTimer = { clear(): void };

/**
 * setTimeout for any delay: one longer than Node can hold is chained in steps, so a timeout of
 * weeks (or a typo such as 1e12) waits that long instead of firing at once. Infinity never fires.
 * Unref'd timers do not keep the process alive, as with `unref()` on a plain timer.
 */
export function safeTimeout(fn: () => void, ms: number, opts: { unref?: boolean } = {}): SafeTimer {
  let handle: NodeJS.Timeout | undefined;
  let cleared = false;
  const deadline = performance.now() + (Number.isFinite(ms) ? Math.max(0, ms) : Number.POSITIVE_INFINITY);
  const arm = () => {
    if (cleared) return;
    const left = Math.max(0, deadline - performance.now());
    if (left === Number.POSITIVE_INFINITY && opts.unref) return;
    handle = setTimeout(left > MAX_TIMER_MS ? arm : fn, Math.min(Math.ceil(left), MAX_TIMER_MS));
    if (opts.unref) handle.unref();
  };
  arm();
  return {
    clear() {
      cleared = true;
      if (handle) clearTimeout(handle);
    },
  };
}
