import type { NetworkConfig } from '../config/schema.js';

/**
 * Without root, bwrap makes its namespaces from a user namespace of its own, and the process it starts
 * sits in a second one nested inside: it holds no capability over the network namespace, so the
 * harness's bridge could not listen on the sandbox's port 53 (DNS) even with `--cap-add`, and it would
 * share the agent's uid and PID namespace (the agent could signal it, open its inspector, trace it).
 * The network namespace is therefore made one step earlier, by `unshare` in an outer user namespace
 * where the invoking user is root: the bridge runs there, outside bwrap, and bwrap inside it without
 * `--unshare-net`. The host's network is untouched; everything bwrap starts is the user's own uid
 * without capabilities.
 */
export function rootlessNetwork(network: NetworkConfig): boolean {
  return process.geteuid?.() !== 0 && network.mode !== 'host';
}

const LAUNCHER = ['unshare', '--user', '--map-root-user', '--net', '--'];

/**
 * `argv` started in a new user namespace where the invoking user is root, owning a new network
 * namespace whose loopback is brought up first (bwrap would have done it had it made the namespace).
 * The harness's bridge binds the sandbox's port 53 there with that namespace's own capability.
 * A failure stops before `argv` runs, so the run's start proof reports it with the line printed.
 */
export function rootlessLaunch(argv: readonly string[]): string[] {
  const script = 'ip link set lo up || exit 125; exec "$@"';
  return [...LAUNCHER, '/bin/sh', '-c', script, 'agentguard-netns', ...argv];
}

/** bwrap's user namespace inside the outer one maps the sandbox to the invoking user's own ids. */
export function rootlessIdArgs(): string[] {
  return ['--uid', String(process.getuid?.() ?? 0), '--gid', String(process.getgid?.() ?? 0)];
}

/** What a run without root gives up against one started as root, for observation.json and reports. */
export const ROOTLESS_WEAKER =
  'the agent runs as the invoking user, not a uid of its own: what that user may read or write in a ' +
  'shown folder, it may too (agentguard output folders and other runs stay hidden by the view, not ' +
  'by permissions); the proxy bridge runs as the same user, outside the sandbox PID namespace; no ' +
  'process limit unless the user has a delegated cgroup; the eBPF collector needs root, so strace traces';
