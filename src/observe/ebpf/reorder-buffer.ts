/**
 * Puts items back in kernel time order. bpftrace drains one perf buffer per CPU, so events from
 * different CPUs reach us out of order (a child's exec can arrive before its parent's fork); an
 * item is released once the clock has moved `windowNs` past it, by which time every CPU buffer
 * that could hold something earlier has been read.
 */
export class ReorderBuffer<T extends { t: number }> {
  private items: { item: T; arrival: number }[] = [];
  private arrivals = 0;

  constructor(private readonly windowNs: number) {}

  push(item: T): void {
    this.items.push({ item, arrival: this.arrivals++ });
  }

  /** Items older than `nowNs - windowNs`, in time order (arrival order breaks ties). */
  release(nowNs: number): T[] {
    const cutoff = nowNs - this.windowNs;
    const ready = this.items.filter((entry) => entry.item.t <= cutoff);
    if (ready.length === 0) return [];
    this.items = this.items.filter((entry) => entry.item.t > cutoff);
    return sorted(ready);
  }

  /** Everything, in time order: the stream has ended. */
  drain(): T[] {
    const all = sorted(this.items);
    this.items = [];
    return all;
  }

  get size(): number {
    return this.items.length;
  }
}

function sorted<T extends { t: number }>(entries: { item: T; arrival: number }[]): T[] {
  return entries.sort((a, b) => a.item.t - b.item.t || a.arrival - b.arrival).map((entry) => entry.item);
}
