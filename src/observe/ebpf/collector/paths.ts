import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { SetupError } from '../../../errors.js';
import { packageRoot } from '../../../package-root.js';

/**
 * The record format and protocol this agentguard speaks (`VERSION` in collector/loader.c; a test
 * keeps the two equal). It names the socket, and a run still checks the collector's answer: one of
 * another version is never read.
 */
export const COLLECTOR_PROTOCOL = '12';

/**
 * Where the collector's socket, lock and log live: root-only, shared by every run on the host. Each
 * protocol version has its own, so installations of different versions each get their collector.
 */
export const COLLECTOR_DIR = '/run/agentguard/collector';
export const COLLECTOR_SOCKET = path.join(COLLECTOR_DIR, `v${COLLECTOR_PROTOCOL}.sock`);
export const COLLECTOR_LOCK = path.join(COLLECTOR_DIR, `v${COLLECTOR_PROTOCOL}.start.lock`);
export const COLLECTOR_LOG = path.join(COLLECTOR_DIR, `v${COLLECTOR_PROTOCOL}.log`);
/** Seconds without a run after which the collector exits on its own. */
export const COLLECTOR_IDLE_EXIT_S = 30;

/**
 * Chooses the ebpf engine: unset tries the compiled collector, then bpftrace; `bpftrace` skips the
 * collector; `collector` insists on it (a failure is then an error, not a fallback).
 */
export const ENGINE_ENV = 'AGENTGUARD_EBPF_ENGINE';
export type EbpfEngine = 'auto' | 'collector' | 'bpftrace';

export function requestedEngine(env: NodeJS.ProcessEnv = process.env): EbpfEngine {
  const value = env[ENGINE_ENV];
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'collector' || value === 'bpftrace') return value;
  throw new SetupError(
    `${ENGINE_ENV}=${JSON.stringify(value).slice(0, 60)} is not an ebpf engine. Fix: set it to collector, bpftrace or auto, or unset it.`,
  );
}

/** The command that builds the collector where this agentguard is installed (a clone or a package). */
export function buildCollectorCommand(): string {
  return `apt-get install -y clang llvm libbpf-dev bpftool libelf-dev make && make -C ${path.join(packageRoot(), 'collector')}`;
}

/** Names another collector program (a test points it at one that is missing or broken). */
export const BINARY_ENV = 'AGENTGUARD_COLLECTOR_BINARY';

/** The collector program's name; the microvm sandbox knows the in-guest tracer's wrap by it. */
export const COLLECTOR_PROGRAM = 'agentguard-collector';

/** The built collector program (collector/build, made by `make -C collector` at install time). */
export function collectorBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env[BINARY_ENV] || path.join(packageRoot(), 'collector', 'build', COLLECTOR_PROGRAM);
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
