import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each benchmark runs in its own process so its peak memory is its own. */
type Bench = { name: string; script: string; targets: Record<string, [number, string]> };

const BENCHES: Bench[] = [
  {
    name: 'pipeline: 2,000-file / 100,000-line repo, agent changes 200 files',
    script: 'pipeline-bench.js',
    targets: { harness_ms: [2000, 'ms'], analyze_ms: [500, 'ms'], peak_rss_mb: [300, 'MB'] },
  },
];

const only = process.argv[2];
let missed = 0;
for (const bench of BENCHES) {
  if (only && !bench.script.startsWith(only)) continue;
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), bench.script);
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  console.log(`\n${bench.name}`);
  if (r.status !== 0 || !line.startsWith('{')) {
    console.log(`  failed to run (exit ${r.status})`);
    missed++;
    continue;
  }
  const figures = JSON.parse(line) as Record<string, number | string>;
  for (const [key, value] of Object.entries(figures)) {
    const target = bench.targets[key];
    const verdict = target
      ? Number(value) <= target[0]
        ? `  (target < ${target[0]} ${target[1]}: met)`
        : `  (target < ${target[0]} ${target[1]}: MISSED)`
      : '';
    if (target && Number(value) > target[0]) missed++;
    console.log(`  ${key.padEnd(22)} ${value}${verdict}`);
  }
}
console.log(missed === 0 ? '\nall targets met' : `\n${missed} target(s) missed`);
