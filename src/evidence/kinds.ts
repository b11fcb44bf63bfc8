/**
 * The names of the sandboxes and tracers: what the config and the CLI accept and what evidence
 * records. They live here, in the evidence vocabulary that imports nothing, because
 * evidence/types.ts and config/schema.ts need them and must not import the registries above them
 * (src/sandbox/index.ts, src/observe/index.ts import both). Each registry is a Record keyed by
 * these names, so the compiler demands an implementation for every name and refuses one without.
 */

/** Every sandbox; with no sandbox configured, the first that needs no config and is available is used. */
export const SANDBOX_KINDS = ['bwrap', 'container', 'local', 'microvm'] as const;
export type SandboxKind = (typeof SANDBOX_KINDS)[number];

/** Every tracer, best first: `tracer: auto` tries them in this order, and one that cannot run gives way to the next. */
export const TRACER_KINDS = ['ebpf', 'strace'] as const;
export type TracerName = (typeof TRACER_KINDS)[number];
/** What observed a run: a tracer, or none. */
export type TracerKind = TracerName | 'off';

/** What the config and `--tracer` accept: the best available, a tracer by name, or none. */
export const TRACER_CHOICES = ['auto', ...TRACER_KINDS, 'off'] as const;
export type TracerRequest = (typeof TRACER_CHOICES)[number];
