import { errorMessage } from '../errors.js';

type Entry = { name: string; release: () => unknown; done: boolean };

/** A registered resource: release it early (normal path) or leave it to `dispose()`. */
export type Held = { release(): Promise<void> };

/**
 * One stack of everything a run acquired (model server, proxy, DNS responder, sandbox, tracer,
 * cgroups, folders). Each resource is pushed the moment it exists and released in reverse order on
 * every path: success, an error at any step, or a signal. Releasing twice is a no-op, so the normal
 * path can release early and `dispose()` in a `finally` still runs safely.
 */
export class Disposer {
  private readonly stack: Entry[] = [];
  private disposing: Promise<string[]> | null = null;
  /** Problems met while releasing, for the run's warnings; never thrown. */
  readonly problems: string[] = [];

  add(name: string, release: () => unknown): Held {
    const entry: Entry = { name, release, done: false };
    if (this.disposing) {
      // Acquired while tearing down (a start that was already under way): release it at once.
      void this.run(entry);
      return { release: async () => {} };
    }
    this.stack.push(entry);
    return { release: () => this.run(entry) };
  }

  /** Names of what is still held, innermost last. */
  get held(): string[] {
    return this.stack.filter((e) => !e.done).map((e) => e.name);
  }

  /** Release everything still held, newest first; a failing release does not stop the others. */
  dispose(): Promise<string[]> {
    this.disposing ??= (async () => {
      for (const entry of [...this.stack].reverse()) await this.run(entry);
      return this.problems;
    })();
    return this.disposing;
  }

  private async run(entry: Entry): Promise<void> {
    if (entry.done) return;
    entry.done = true;
    try {
      await entry.release();
    } catch (err) {
      this.problems.push(`could not release ${entry.name}: ${errorMessage(err)}`);
    }
  }
}

/** Every disposer of a run still in progress: the CLI's last resort when a second signal arrives. */
const live = new Set<Disposer>();

export function trackDisposer(d: Disposer): () => void {
  live.add(d);
  return () => live.delete(d);
}

export async function disposeAll(): Promise<void> {
  await Promise.all([...live].map((d) => d.dispose()));
}
