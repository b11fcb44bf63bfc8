import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errorMessage, InternalError } from '../errors.js';
import { rootFileName } from '../evidence/root-files.js';
import type { SysEvent } from '../evidence/types.js';
import type { SpawnSpec } from '../exec/types.js';
import { appendRoot } from './append-root.js';
import { COLLECTOR_PROGRAM, collectorBinary, isExecutable } from './ebpf/collector/paths.js';
import { FileTail } from './ebpf/file-tail.js';
import { EBPF_RAW_LOG } from './ebpf/raw-log-redaction.js';
import { REC_READY } from './ebpf/record-format.js';
import { quickRecordType } from './ebpf/record-parser.js';
import { REORDER_WINDOW_NS, RecordStream } from './ebpf/record-stream.js';
import { type GuestTraceEnd, traceEndFile } from './guest-trace-end.js';
import { readLines } from './line-reader.js';
import { findExecutable, straceOptions, straceVersion } from './strace/strace-command.js';
import { parseLog } from './strace/strace-tracer.js';
import type { Tracer, TracerContext, TracerOutput, TracerSession } from './types.js';

const STRING_LIMIT = 4096;
const ENGINE = 'ebpf (compiled collector, in the guest)';

/**
 * The ebpf tracer of a sandbox with its own kernel: the compiled collector runs inside the guest
 * (its wrap is taken apart by the microvm sandbox, sandbox/microvm/split-tracer.ts) and writes its records to the
 * trace port, which the host keeps as the usual raw file. Where it cannot start in the guest, the
 * guest runs strace on the same port instead; the session then reads that root as strace's log and
 * says so (`fallback`). Available where the collector is built.
 */
export const guestEbpfTracer: Tracer = {
  kind: 'ebpf',
  async available() {
    const binary = collectorBinary();
    if (path.basename(binary) !== COLLECTOR_PROGRAM || !isExecutable(binary))
      return {
        ok: false,
        reason: `the compiled collector is not built (${binary})`,
        fix: 'make -C collector (scripts/install.sh builds it)',
      };
    return { ok: true, version: ENGINE };
  },
  async start(ctx) {
    mkdirSync(ctx.scratch_dir, { recursive: true });
    const strace = findExecutable('strace');
    const straceVer = strace ? await straceVersion(strace) : null;
    return new GuestEbpfSession(ctx, collectorBinary(), strace, straceVer);
  },
};

/** One wrapped command (a VM of its own): its raw file, its stream and when its READY arrived. */
type Root = {
  rawPath: string;
  cwd: string;
  stream: RecordStream;
  tail: FileTail;
  /** Wall-clock ms when this root's READY line reached the host (its ts 0). */
  clock: { readyWallMs: number | null };
};

class GuestEbpfSession implements TracerSession {
  readonly kind = 'ebpf' as const;
  /**
   * The guest's kernel clock is not the host's: each root's event times are placed on the host's
   * clock by when its READY record arrived (the collector writes it just before the command
   * starts), relative to this session's start.
   */
  readonly zeroWallMs = Date.now();
  private readonly roots: Root[] = [];
  private stopping: Promise<TracerOutput> | null = null;

  constructor(
    private readonly ctx: TracerContext,
    private readonly binary: string,
    private readonly strace: string | null,
    private readonly straceVer: string | null,
  ) {}

  wrap(spec: SpawnSpec): SpawnSpec {
    if (this.stopping) throw new InternalError('guest ebpf tracer: wrap() after stop()');
    const n = this.roots.length;
    const rawPath = path.join(this.ctx.scratch_dir, rootFileName(EBPF_RAW_LOG, n));
    // Made here, so that the tail can open it before the guest's first write.
    closeSync(openSync(rawPath, 'w', 0o600));
    // Live events (the guard) follow the first root, the agent, as with strace.
    const onEvent = n === 0 ? this.ctx.onEvent : undefined;
    const clock: Root['clock'] = { readyWallMs: null };
    const stream = new RecordStream(
      'the guest collector',
      REORDER_WINDOW_NS.ringBuffer,
      onEvent ? (e) => onEvent(this.placed(clock, e)) : undefined,
    );
    const tail = new FileTail(rawPath, (line, complete) => {
      if (clock.readyWallMs === null && quickRecordType(line) === REC_READY) clock.readyWallMs = Date.now();
      if (stream.wantsLive(line)) stream.line(line, complete);
    });
    this.roots.push({ rawPath, cwd: spec.cwd, stream, tail, clock });
    const stepDown = this.strace ? [this.strace, ...this.straceArgs()] : [];
    return { ...spec, argv: [this.binary, '-o', rawPath, ...stepDown, '--', ...spec.argv] };
  }

  stop(): Promise<TracerOutput> {
    this.stopping ??= this.finish();
    return this.stopping;
  }

  /** strace's options without its output file and `--` (the guest adds its port). */
  private straceArgs(): string[] {
    const options = straceOptions('-', STRING_LIMIT);
    return options.slice(0, options.indexOf('-o'));
  }

  private placed(clock: Root['clock'], event: SysEvent): SysEvent {
    const offset = (clock.readyWallMs ?? this.zeroWallMs) - this.zeroWallMs;
    return offset === 0 ? event : { ...event, ts: Math.round((event.ts + offset) * 1000) / 1000 };
  }

  private async finish(): Promise<TracerOutput> {
    const out: TracerOutput = { version: ENGINE, events: [], lost_events: 0, binds: true, warnings: [] };
    const missing = new Set<string>();
    const stepDowns: string[] = [];
    const incomplete: string[] = [];
    for (const [i, root] of this.roots.entries()) {
      await root.tail.end().catch((err: unknown) => {
        incomplete.push(`could not read ${root.rawPath}: ${errorMessage(err)}`);
      });
      const end = readEnd(root.rawPath);
      const which = this.roots.length > 1 ? ` (command ${i + 1} of ${this.roots.length})` : '';
      let part: Omit<TracerOutput, 'version'>;
      if (end && 'engine' in end && end.engine === 'strace') {
        stepDowns.push(end.reason);
        part = await parseLog(root.rawPath, root.cwd, this.zeroWallMs, undefined);
      } else {
        part = await this.collectorPart(root);
        if (!end)
          incomplete.push(
            `the guest's trace has no end record${which}: the VM stopped before the collector drained; events after its last record are missing`,
          );
        else if ('error' in end) incomplete.push(`the guest's trace broke off${which}: ${end.error}`);
        else {
          out.version = end.version;
          for (const m of end.missing) missing.add(m);
          if (end.missing.includes('bind')) out.binds = false;
        }
      }
      appendRoot(out, part);
    }
    if (missing.size > 0)
      out.warnings.push(`not traced (no tracepoint in the guest's kernel): ${[...missing].join(', ')}`);
    if (incomplete.length > 0) out.incomplete = incomplete.join('; ');
    if (stepDowns.length > 0) {
      out.fallback = {
        component: 'tracer',
        wanted: ENGINE,
        used: this.straceVer ? `strace ${this.straceVer} in the guest` : 'strace in the guest',
        reason: [...new Set(stepDowns)].join('; '),
      };
      if (stepDowns.length === this.roots.length) {
        out.kind = 'strace';
        out.version = this.straceVer ?? 'strace';
      }
    }
    return out;
  }

  private async collectorPart(root: Root): Promise<Omit<TracerOutput, 'version'>> {
    const warnings: string[] = [];
    // Without a live listener only the clock lines were read as they came; the rest are read now.
    if (!root.stream.live) {
      await readLines(root.rawPath, (line, complete) => root.stream.line(line, complete)).catch(
        (err: unknown) => {
          warnings.push(`could not read ${root.rawPath}: ${errorMessage(err)}`);
        },
      );
    }
    const finished = root.stream.finish();
    return {
      events: root.stream.events.map((e) => this.placed(root.clock, e)),
      lost_events: finished.lost,
      warnings: [...warnings, ...finished.warnings],
    };
  }
}

function readEnd(rawPath: string): GuestTraceEnd | null {
  try {
    return JSON.parse(readFileSync(traceEndFile(rawPath), 'utf8')) as GuestTraceEnd;
  } catch {
    return null;
  }
}
