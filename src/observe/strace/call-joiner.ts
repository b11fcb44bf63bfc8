/** A call strace printed as `<unfinished ...>`, waiting for its `<... name resumed>` line. */
export type PendingCall = { tid: number; name: string; text: string; order: number };

/** Joins unfinished/resumed pairs: the halves of one call share a thread id and a syscall name. */
export class CallJoiner {
  private readonly pending = new Map<number, PendingCall>();
  private order = 0;

  /** Returns the call it displaced, if the thread had one pending (its resume line never came). */
  begin(tid: number, name: string, text: string): PendingCall | undefined {
    const displaced = this.pending.get(tid);
    this.pending.set(tid, { tid, name, text, order: this.order++ });
    return displaced;
  }

  /** The whole call text, or null when nothing matching was pending. */
  resume(tid: number, name: string, rest: string): string | null {
    const call = this.pending.get(tid);
    if (!call || call.name !== name) return null;
    this.pending.delete(tid);
    return call.text + rest;
  }

  /** The most recent pending call among `names` (the likely creator of a thread id not seen before). */
  latest(names: ReadonlySet<string>): PendingCall | undefined {
    let best: PendingCall | undefined;
    for (const call of this.pending.values()) {
      if (names.has(call.name) && (!best || call.order > best.order)) best = call;
    }
    return best;
  }

  /** Calls that never resumed (the process died or the log was cut), oldest first; empties the joiner. */
  drain(): PendingCall[] {
    const calls = [...this.pending.values()].sort((a, b) => a.order - b.order);
    this.pending.clear();
    return calls;
  }
}
