import {
  agentCacheDir,
  formatVerification,
  installAgent,
  installedAgents,
  readVerification,
  recordVerification,
} from '../../agents/install/index.js';
import { listBuiltinProfiles, loadProfile } from '../../agents/profiles/load-profile.js';
import { runsOffline } from '../../agents/profiles/schema.js';
import { verifyAgent } from '../../agents/verify-agent.js';
import { renderTable } from '../../reports/table.js';
import type { CliIO } from '../io.js';
import { stepProgress } from '../phase-progress.js';

/** `agentguard agents install NAME…`: pinned versions into agentguard's own cache, never globally. */
export async function agentsInstall(io: CliIO, names: string[], opts: { json?: boolean }): Promise<number> {
  const results = [];
  for (const name of names) {
    const r = await installAgent(name, { log: (line) => io.err(line) });
    results.push(r);
    if (!opts.json) io.out(`${r.name} ${r.version} ${r.fresh ? 'installed' : 'already installed'}: ${r.bin}`);
  }
  if (opts.json) io.out(JSON.stringify(results, null, 2));
  return 0;
}

/**
 * `agentguard agents list`: every built-in profile, its pinned package, what the cache holds and when
 * the agent last passed a verification (`agents verify` or the real-agent tests), read beside the cache.
 */
export async function agentsList(io: CliIO, opts: { json?: boolean }): Promise<number> {
  const cache = agentCacheDir();
  const installed = new Map(installedAgents(cache).map((a) => [a.name, a]));
  const rows = listBuiltinProfiles().map((name) => {
    const p = loadProfile(name);
    const have = installed.get(name);
    const verified = readVerification(cache, name);
    return {
      name,
      package: p.package ? `${p.package.name}@${p.package.version}` : null,
      endpoint: p.endpoint ?? null,
      offline: runsOffline(p),
      offline_reason: p.offline_reason ?? null,
      skills_dir: p.skills_dir ?? null,
      installed: have?.version ?? null,
      status: have?.status ?? 'not installed',
      verified: verified.status === 'verified' ? verified.record : null,
      // `never`, `unreadable` or the date and version, as the table shows it.
      last_verified: formatVerification(verified),
    };
  });
  if (opts.json) io.out(JSON.stringify({ cache, agents: rows }, null, 2));
  else {
    io.out(`agent cache: ${cache}`);
    io.out(
      renderTable(
        ['agent', 'package', 'model API', 'offline', 'skills', 'installed', 'status', 'last verified'],
        rows.map((r) => [
          r.name,
          r.package ?? '-',
          r.endpoint ?? '-',
          r.offline ? 'yes' : 'no (online only)',
          r.skills_dir ?? '-',
          r.installed ?? '-',
          r.status,
          r.last_verified,
        ]),
      ),
    );
  }
  return 0;
}

/** `agentguard agents verify NAME`: the offline smoke task for one installed agent; exit 1 when a step fails. */
export async function agentsVerify(io: CliIO, name: string, opts: { json?: boolean }): Promise<number> {
  const progress = stepProgress(io, { command: `agents verify ${name}`, json: opts.json === true });
  const r = await verifyAgent(name, { step: progress.step }).finally(progress.stop);
  // Only a built-in's success is recorded: `agents list` shows built-ins, and a profile file given by
  // path may share a built-in's name without being it.
  if (r.ok && listBuiltinProfiles().includes(name))
    recordVerification(agentCacheDir(), {
      agent: name,
      version: r.version,
      by: 'agentguard agents verify (offline smoke task)',
      worked: r.steps.map((s) => `${s.step}: ${s.detail}`),
      at: new Date(),
    });
  if (opts.json) io.out(JSON.stringify(r, null, 2));
  else {
    io.out(`${r.agent} ${r.version ?? ''}: ${r.ok ? 'verified offline' : 'FAILED'} (${r.ms} ms)`);
    for (const s of r.steps) io.out(`  ${s.ok ? 'ok  ' : 'FAIL'} ${s.step.padEnd(7)} ${s.detail}`);
  }
  return r.ok ? 0 : 1;
}
