/**
 * Run `fn` over `items` with at most `limit` in flight; results come back in input order whatever
 * the completion order. A rejection stops new work from starting and is rethrown once in-flight
 * work has settled.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}

export type Settled<R> =
  | { status: 'done'; value: R }
  | { status: 'failed'; error: unknown }
  /** Never started: `signal` ended the batch first. */
  | { status: 'skipped' };

/**
 * Like mapLimit, but one item's failure is that item's row, not the batch's end: every other
 * item still runs. `signal` (an interrupt) stops new items from starting; they come back skipped.
 */
export async function mapSettled<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<Settled<R>[]> {
  const results: Settled<R>[] = items.map(() => ({ status: 'skipped' }));
  let next = 0;
  const worker = async () => {
    while (!signal?.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'done', value: await fn(items[index] as T, index) };
      } catch (error) {
        results[index] = { status: 'failed', error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
