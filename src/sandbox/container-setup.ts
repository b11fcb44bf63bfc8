import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ContainerConfig } from '../config/schema.js';
import { SetupError } from '../errors.js';
import { isInside } from '../workspace/copy-template.js';
import { SANDBOX_PROXY_DIR } from './bwrap.js';
import { checkMountPath, type RunPlan, runArgs } from './container-args.js';
import { type EngineName, engineCommand, firstLine } from './container-engine.js';
import { outputMasks, withheldMasks } from './host-masks.js';
import type { SandboxContext } from './types.js';

/** The image's id in the engine's local store; never pulls, so the evidence always names a local image. */
export async function inspectImage(engine: EngineName, image: string): Promise<string> {
  const out = await engineCommand(engine, ['image', 'inspect', '--format', '{{.Id}}', image]);
  const id = out.stdout.trim();
  if (out.exit_code === 0 && id) return id;
  throw new SetupError(
    `container image '${image}' is not in ${engine}'s local image store (${firstLine(out)}); agentguard never ` +
      `pulls, so the evidence always names a local image. Fix: \`${engine} load -i <image.tar>\` (or ` +
      `\`${engine} import\`), or for the test image run scripts/make-test-image.sh.`,
  );
}

/**
 * Start a throwaway container running a command that cannot exist: exit 127 means the runtime created the
 * container and only the exec failed, so every limit and mount of the plan is accepted here.
 */
async function probeRuntime(plan: RunPlan, name: string): Promise<{ ok: true } | { ok: false; why: string }> {
  const missing = `/agentguard-runtime-probe-${randomBytes(4).toString('hex')}`;
  const out = await engineCommand(plan.engine, [...runArgs(plan, name, '/', []), missing]);
  return out.exit_code === 127 ? { ok: true } : { ok: false, why: firstLine(out) };
}

/** Pick the runtime: the configured one, else the engine's default, else runc when the default fails here. */
export async function chooseRuntime(
  plan: RunPlan,
  cfg: ContainerConfig,
  defaultRuntime: string,
  name: string,
) {
  const first = await probeRuntime({ ...plan, runtime: cfg.runtime }, name);
  if (first.ok) return { runtime: cfg.runtime, reason: '' };
  if (plan.engine === 'podman' && !cfg.runtime && defaultRuntime !== 'runc') {
    const second = await probeRuntime({ ...plan, runtime: 'runc' }, name);
    if (second.ok)
      return { runtime: 'runc', reason: `default runtime ${defaultRuntime} failed: ${first.why}` };
    throw new SetupError(
      `podman cannot start a container here: ${defaultRuntime} fails (${first.why}) and runc fails (${second.why}). ` +
        'Fix: apt-get install -y runc, or set container.runtime to a runtime that works.',
    );
  }
  throw new SetupError(
    `${plan.engine} cannot start a container from the image here (${first.why}). ` +
      `Fix: run \`${plan.engine} run --rm <image> true\` by hand and resolve what it reports` +
      (cfg.runtime ? `, or change container.runtime (now '${cfg.runtime}').` : '.'),
  );
}

/** Folders a bind would shadow in the image (its own userland): `visible` entries like these are skipped. */
function coversImageSystem(dir: string): boolean {
  const parts = dir.split('/').filter(Boolean);
  if (parts.length === 0) return true;
  if (parts[0] === 'usr') return parts.length <= 2;
  return parts.length === 1 && IMAGE_SYSTEM_DIRS.has(parts[0] ?? '');
}
const IMAGE_SYSTEM_DIRS = new Set([
  'bin',
  'sbin',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'etc',
  'var',
  'run',
  'tmp',
]);

export function planMounts(ctx: SandboxContext): {
  mounts: RunPlan['mounts'];
  masks: string[];
  skipped: string[];
} {
  const mounts: RunPlan['mounts'] = [];
  const skipped: string[] = [];
  // Read-only and at the same path, as under bwrap; podman mounts parents first, so the workspace
  // stays writable even when it lies inside one of these.
  for (const dir of new Set(ctx.visible)) {
    if (!existsSync(dir) || dir === ctx.repoDir || dir === ctx.agentHome || dir === SANDBOX_PROXY_DIR)
      continue;
    if (coversImageSystem(dir)) skipped.push(dir);
    else mounts.push({ source: dir, target: dir, readOnly: true });
  }
  // What the config named writable (`sandbox.mounts` with `writable: true`), at its own path.
  for (const dir of new Set(ctx.writable ?? []))
    if (existsSync(dir)) mounts.push({ source: dir, target: dir });
  mounts.push({ source: ctx.repoDir, target: ctx.repoDir }, { source: ctx.hostHome, target: ctx.agentHome });
  // An allow list without the proxy's sockets (the container bridges none: observe-window records the
  // run's network as none) leaves the container its empty network namespace.
  // Read-only: the agent may connect to the proxy's sockets but not replace them.
  if (ctx.proxyDir) mounts.push({ source: ctx.proxyDir, target: SANDBOX_PROXY_DIR, readOnly: true });
  for (const m of mounts) checkMountPath(m.source, 'host folder');
  // The container sees only the folders bound into it; an output folder inside one of them (the
  // config's `.agentguard`, with every run's canaries) is covered by an empty tmpfs. The engine mounts
  // by depth, so this run's workspace and HOME still appear inside it.
  const shown = mounts.filter((m) => m.readOnly).map((m) => m.target);
  // The task's solution and the template's grader files are withheld as under bwrap, unless named.
  const named = [...ctx.visible, ...(ctx.writable ?? [])];
  const masks = [...outputMasks(ctx), ...withheldMasks(ctx.withheld ?? [], named)]
    .map((m) => m.path)
    .filter((p) => shown.some((dir) => dir !== p && isInside(dir, p)));
  for (const m of masks) checkMountPath(m, 'masked folder');
  return { mounts, masks, skipped };
}

/**
 * An empty folder of the session's for each mask, bound read-only over it. Not a tmpfs: runc gives a
 * tmpfs the mode of the folder it covers, and the output folder is 0700 root's, so the run user could
 * not cross it to its own workspace and HOME bound inside. Each holds only the 0755 folders leading to
 * what is bound inside it (as bwrap's openParents), made here, so the runtime creates nothing in it.
 */
export function prepareMasks(
  dir: string,
  masks: readonly string[],
  inside: readonly string[],
): NonNullable<RunPlan['masks']> {
  return masks.map((target, i) => {
    const source = path.join(dir, String(i));
    if (statSync(target, { throwIfNoEntry: false })?.isFile()) {
      // A withheld file: an empty one of the session's in its place.
      mkdirSync(dir, { recursive: true });
      writeFileSync(source, '', { mode: 0o444 });
      return { source, target };
    }
    const made = [source];
    for (const t of inside) {
      const rel = path.relative(target, t);
      if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
      let at = source;
      for (const part of rel.split(path.sep)) {
        at = path.join(at, part);
        made.push(at);
      }
    }
    for (const d of made) {
      mkdirSync(d, { recursive: true });
      chmodSync(d, 0o755);
    }
    return { source, target };
  });
}
