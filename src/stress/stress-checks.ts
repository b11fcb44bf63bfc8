import type { BatchHistoryRow, HistoryRow } from '../history/types.js';
import type { BatchPlan, BatchSummary, Row } from '../reports/batch-types.js';

/** One integrity property of the batch layer, checked against what the synthetic attempts did. */
export type StressCheck = { id: string; passed: boolean; detail: string };

export type StressReport = {
  schema_version: 1;
  kind: 'matrix-stress';
  id: string;
  created_at: string;
  workload: {
    description: string;
    attempts: number;
    workers: number;
    fail_fast: boolean;
    planted_failure_index: number;
    sleep_ms: string;
    arithmetic_iterations: number;
    tasks: number;
  };
  /** planned: in the plan; submitted: started by the scheduler; executed: finished and checkpointed. */
  accounting: {
    planned: number;
    submitted: number;
    executed: number;
    not_run: number;
    history_rows: number;
    checkpoint_rows: number;
  };
  totals: BatchSummary['totals'];
  performance: {
    wall_ms: number;
    /** Executed attempts per second of wall time: of this synthetic workload only. */
    throughput_per_s: number;
    cpu_user_ms: number;
    cpu_system_ms: number;
    /** Highest resident set size sampled as attempts finished. */
    peak_rss_bytes: number;
    /** The process's own high-water mark since it started (getrusage). */
    process_max_rss_bytes: number;
    peak_in_flight: number;
  };
  checks: StressCheck[];
  passed: boolean;
  /** The batch folder, relative to the report's folder. */
  batch_dir: string;
};

export type StressEvidence = {
  plan: BatchPlan;
  /** summary.json as written, and as runBatch returned it. */
  summary: BatchSummary;
  returned: BatchSummary;
  checkpoint: Row[];
  /** The history rows linked to the batch. */
  history: HistoryRow[];
  batchRow: BatchHistoryRow | null;
  /** Milliseconds since the batch began at which each attempt started and ended. */
  starts: ReadonlyMap<number, number>;
  ends: ReadonlyMap<number, number>;
  failIndex: number;
  peakInFlight: number;
  expectedRunId: (index: number) => string;
};

const check = (id: string, problems: string[], ok: string): StressCheck =>
  problems.length === 0
    ? { id, passed: true, detail: ok }
    : {
        id,
        passed: false,
        detail:
          problems.slice(0, 5).join('; ') + (problems.length > 5 ? ` (+${problems.length - 5} more)` : ''),
      };

/** Every integrity check of a stress run. Pure. */
export function stressChecks(e: StressEvidence): StressCheck[] {
  const { plan, summary } = e;
  const planned = plan.attempts.length;
  const workers = plan.options.workers;
  const rows = summary.rows;
  const executed = rows.length;
  const out: StressCheck[] = [];

  out.push(
    check(
      'bounded',
      e.peakInFlight > workers ? [`${e.peakInFlight} attempts ran at once with ${workers} workers`] : [],
      `at most ${e.peakInFlight} of ${workers} workers busy at once`,
    ),
  );

  const acc: string[] = [];
  if (e.starts.size !== executed) acc.push(`${e.starts.size} submitted but ${executed} executed`);
  if (!plan.options.fail_fast && executed !== planned)
    acc.push(`${executed} of ${planned} executed without fail-fast`);
  if (summary.attempts_planned !== planned)
    acc.push(`summary plans ${summary.attempts_planned}, the plan ${planned}`);
  const t = summary.totals;
  if (t.pass + t.fail + t.error + t.not_run !== planned)
    acc.push(`totals add up to ${t.pass + t.fail + t.error + t.not_run}, not ${planned}`);
  if (t.not_run !== planned - executed) acc.push(`not_run ${t.not_run}, expected ${planned - executed}`);
  if (summary.complete !== (executed === planned))
    acc.push(`complete is ${summary.complete} with ${executed} of ${planned}`);
  out.push(check('accounting', acc, `planned ${planned}, submitted ${e.starts.size}, executed ${executed}`));

  const order: string[] = [];
  for (let i = 1; i < rows.length; i++)
    if ((rows[i]?.index ?? 0) <= (rows[i - 1]?.index ?? 0)) order.push(`row ${i} out of input order`);
  for (const r of rows) if (!e.starts.has(r.index)) order.push(`row ${r.index} was never started`);
  if (JSON.stringify(e.returned.rows) !== JSON.stringify(rows))
    order.push('summary.json rows differ from the returned summary');
  out.push(check('order', order, 'rows in input order, one per started attempt'));

  const cp: string[] = [];
  const cpIndices = e.checkpoint.map((r) => r.index).sort((a, b) => a - b);
  if (JSON.stringify(cpIndices) !== JSON.stringify(rows.map((r) => r.index)))
    cp.push(`checkpoint holds ${cpIndices.length} rows, summary ${executed}`);
  out.push(check('checkpoint', cp, `${e.checkpoint.length} checkpointed rows, one per executed attempt`));

  const hist: string[] = [];
  const byId = new Map<string, HistoryRow[]>();
  for (const h of e.history) byId.set(h.run_id, [...(byId.get(h.run_id) ?? []), h]);
  for (const r of rows) {
    const want = e.expectedRunId(r.index);
    const found = byId.get(want) ?? [];
    if (r.run_id !== want) hist.push(`attempt ${r.index} has run id ${r.run_id}, expected ${want}`);
    if (found.length !== 1) {
      hist.push(`attempt ${r.index}: ${found.length} history rows`);
      continue;
    }
    const h = found[0] as HistoryRow;
    if (h.batch_id !== plan.batch_id) hist.push(`${want} linked to batch ${h.batch_id}`);
    if (h.name !== r.task || h.agent !== r.agent)
      hist.push(`${want} is ${h.agent}/${h.name}, the row ${r.agent}/${r.task}`);
    if (h.result !== r.result) hist.push(`${want} recorded ${h.result}, the row says ${r.result}`);
  }
  const expected = new Set(rows.map((r) => e.expectedRunId(r.index)));
  for (const h of e.history)
    if (!expected.has(h.run_id)) hist.push(`history row ${h.run_id} belongs to no executed attempt`);
  out.push(
    check(
      'history-rows',
      hist,
      `${e.history.length} history rows, exactly one per executed attempt with its ids`,
    ),
  );

  const br: string[] = [];
  const b = e.batchRow;
  if (!b) br.push('the batch has no history row');
  else {
    if (b.attempts_planned !== planned) br.push(`batch row plans ${b.attempts_planned}`);
    if (b.runs !== executed) br.push(`batch row links ${b.runs} runs, ${executed} executed`);
    for (const k of ['pass', 'fail', 'error', 'not_run'] as const)
      if (b[k] !== t[k]) br.push(`batch row ${k} ${b[k]}, summary ${t[k]}`);
    if (b.complete !== summary.complete) br.push(`batch row complete ${b.complete}`);
  }
  out.push(check('batch-row', br, 'the batch history row matches the summary'));

  const tot: string[] = [];
  const plantedRan = rows.some((r) => r.index === e.failIndex);
  if (t.fail !== (plantedRan ? 1 : 0))
    tot.push(`${t.fail} FAIL rows; the only failure planted is attempt ${e.failIndex}`);
  if (t.error !== 0)
    tot.push(`${t.error} ERROR rows: ${rows.find((r) => r.result === 'ERROR')?.reason ?? ''}`);
  const cells = summary.groups.filter((g) => g.task !== null);
  const trials = cells.reduce((n, g) => n + g.trials, 0);
  const passes = cells.reduce((n, g) => n + g.passes, 0);
  if (trials !== executed || passes !== t.pass) tot.push(`groups count ${trials} trials / ${passes} passes`);
  const agent = summary.groups.find((g) => g.task === null);
  if (agent && executed > 0 && agent.pass_rate !== t.pass / executed)
    tot.push(`agent pass rate ${agent.pass_rate}`);
  out.push(check('totals', tot, `${t.pass} PASS, ${t.fail} FAIL (planted), reliability groups agree`));

  const ff: string[] = [];
  if (plan.options.fail_fast) {
    const failedAt = e.ends.get(e.failIndex);
    if (failedAt === undefined) ff.push(`the planted failure (attempt ${e.failIndex}) never ran`);
    else {
      const late = [...e.starts].filter(([, at]) => at > failedAt).map(([i]) => i);
      if (late.length > 0)
        ff.push(`attempts ${late.slice(0, 5).join(', ')} started after the failure finished`);
      const maxStarted = Math.max(...e.starts.keys());
      if (maxStarted >= e.failIndex + workers)
        ff.push(`attempt ${maxStarted} started, beyond the failure's wave (< ${e.failIndex + workers})`);
      if (planned > e.failIndex + workers && executed === planned)
        ff.push('every attempt ran despite fail-fast');
    }
    out.push(
      check(
        'fail-fast',
        ff,
        `no attempt started after attempt ${e.failIndex} failed; ${planned - executed} not run`,
      ),
    );
  } else {
    if (executed !== planned) ff.push(`${planned - executed} attempts did not run without fail-fast`);
    out.push(check('no-fail-fast', ff, 'the planted failure did not stop the batch'));
  }
  return out;
}

/** report.md. Pure. */
export function renderStressMarkdown(r: StressReport): string {
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  const p = r.performance;
  const a = r.accounting;
  return `${[
    `# Matrix stress ${r.id}: ${r.passed ? 'all checks passed' : 'CHECKS FAILED'}`,
    '',
    `${r.workload.attempts} attempts × ${r.workload.workers} workers${r.workload.fail_fast ? ', fail-fast' : ''}; ${r.workload.description}. The figures describe this synthetic workload and the batch layer only.`,
    '',
    '| figure | value |',
    '| --- | --- |',
    `| throughput | ${p.throughput_per_s} attempts/s |`,
    `| wall time | ${p.wall_ms} ms |`,
    `| CPU (user + system) | ${p.cpu_user_ms} + ${p.cpu_system_ms} ms |`,
    `| peak RSS (sampled / process high-water mark) | ${mb(p.peak_rss_bytes)} / ${mb(p.process_max_rss_bytes)} |`,
    `| peak in flight | ${p.peak_in_flight} |`,
    `| planned / submitted / executed / not run | ${a.planned} / ${a.submitted} / ${a.executed} / ${a.not_run} |`,
    `| history rows / checkpoint rows | ${a.history_rows} / ${a.checkpoint_rows} |`,
    `| PASS / FAIL / ERROR | ${r.totals.pass} / ${r.totals.fail} / ${r.totals.error} |`,
    '',
    '| check | result | detail |',
    '| --- | --- | --- |',
    ...r.checks.map(
      (c) => `| ${c.id} | ${c.passed ? 'pass' : 'FAIL'} | ${c.detail.replaceAll('|', '\\|')} |`,
    ),
  ].join('\n')}\n`;
}
