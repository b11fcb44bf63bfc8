/**
 * A tracer writes one raw file per wrapped command (the agent, then the tests): the first under its
 * own name (`strace.log`), each later one numbered before the extension (`strace.1.log`).
 */
export function rootFileName(base: string, n: number): string {
  if (n === 0) return base;
  const dot = base.indexOf('.');
  return dot < 0 ? `${base}.${n}` : `${base.slice(0, dot)}.${n}${base.slice(dot)}`;
}

/** The first command's name for any command's file: `ebpf-raw.1.jsonl` → `ebpf-raw.jsonl`. */
export function rootBaseName(name: string): string {
  return name.replace(/\.\d+(?=\.|$)/, '');
}
