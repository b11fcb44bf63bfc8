import type { TracerName } from '../evidence/kinds.js';
import type { Tracer } from './types.js';

/**
 * A tracer whose module is imported the first time it is asked anything: a run loads only the
 * tracer it uses (the ebpf module and its tables are dozens of modules that a run with strace or
 * the tracer off never needs), and `auto` loads the next one only when the one before cannot run.
 */
export function lazyTracer(kind: TracerName, load: () => Promise<Tracer>): Tracer {
  let loaded: Promise<Tracer> | null = null;
  const tracer = () => {
    loaded ??= load();
    return loaded;
  };
  return {
    kind,
    available: async () => (await tracer()).available(),
    start: async (ctx) => (await tracer()).start(ctx),
    followsCgroupTree: async () => (await (await tracer()).followsCgroupTree?.()) === true,
  };
}
