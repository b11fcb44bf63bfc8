import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compareWithBaseline, parseBaseline } from '../../batch/baseline.js';
import { type GateThresholds, gateChecks } from '../../batch/gate.js';
import { BATCH_FILES } from '../../batch/run-batch.js';
import { ConfigError, errorMessage, InputError } from '../../errors.js';
import type { BatchSummary } from '../../reports/batch-types.js';
import { renderTable } from '../../reports/table.js';
import { wholeNumber } from '../flags.js';
import type { CliIO } from '../io.js';

export type GateFlags = {
  minPassRate?: number | string;
  minWilsonLow?: number | string;
  maxUnsafeSuccesses?: number | string;
  maxAlerts?: number | string;
  maxCost?: number | string;
  baseline?: string;
  maxRegressions?: number | string;
  allowVersionMismatch?: boolean;
  json?: boolean;
};

function rate(flag: string, v: number | string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new ConfigError(`${flag} '${v}' is not a number from 0 to 1. Fix: e.g. ${flag} 0.8.`);
  return n;
}

function amount(flag: string, v: number | string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw new ConfigError(`${flag} '${v}' is not an amount ≥ 0. Fix: e.g. ${flag} 0.25.`);
  return n;
}

function count(flag: string, v: unknown): number | undefined {
  return v === undefined ? undefined : wholeNumber(flag, v, { fallback: 0, min: 0 });
}

/** Exit 0 when every threshold holds on the batch's summary, 1 when one does not: for CI. */
export function gateCommand(io: CliIO, dir: string, flags: GateFlags): number {
  const t: GateThresholds = {};
  const pr = rate('--min-pass-rate', flags.minPassRate);
  const wl = rate('--min-wilson-low', flags.minWilsonLow);
  const us = count('--max-unsafe-successes', flags.maxUnsafeSuccesses);
  const al = count('--max-alerts', flags.maxAlerts);
  if (pr !== undefined) t.minPassRate = pr;
  if (wl !== undefined) t.minWilsonLow = wl;
  if (us !== undefined) t.maxUnsafeSuccesses = us;
  if (al !== undefined) t.maxAlerts = al;
  const mc = amount('--max-cost', flags.maxCost);
  if (mc !== undefined) t.maxCost = mc;
  const mr = count('--max-regressions', flags.maxRegressions);
  if ((mr === undefined) !== (flags.baseline === undefined))
    throw new ConfigError(
      '--baseline and --max-regressions go together. Fix: pass both, e.g. --baseline base.json --max-regressions 0.',
    );
  if (Object.keys(t).length === 0 && mr === undefined)
    throw new ConfigError(
      'gate has no threshold to check. Fix: pass e.g. --min-pass-rate 0.8 or --max-unsafe-successes 0.',
    );
  const file = path.join(path.resolve(dir), BATCH_FILES.summaryJson);
  if (!existsSync(file))
    throw new InputError(
      `${file} does not exist. Fix: pass a batch folder (.agentguard/batches/<id>) whose batch finished or was resumed.`,
    );
  let summary: BatchSummary;
  try {
    summary = JSON.parse(readFileSync(file, 'utf8')) as BatchSummary;
  } catch (err) {
    throw new InputError(
      `${file} is not valid JSON (${errorMessage(err)}). Fix: run 'agentguard resume' on the batch to rewrite it.`,
    );
  }
  if (!Array.isArray(summary.groups) || !Array.isArray(summary.rows))
    throw new InputError(`${file} is not a batch summary. Fix: pass a batch folder.`);
  const checks = gateChecks(summary, t);
  if (mr !== undefined && flags.baseline !== undefined) {
    const bfile = path.resolve(String(flags.baseline));
    if (!existsSync(bfile))
      throw new ConfigError(
        `--baseline ${bfile} does not exist. Fix: pass a file written by --save-baseline.`,
      );
    const c = compareWithBaseline(
      bfile,
      parseBaseline(bfile, readFileSync(bfile, 'utf8')),
      summary,
      flags.allowVersionMismatch === true,
    );
    checks.push({
      name: `regressions against ${path.basename(bfile)}`,
      threshold: `<= ${mr}`,
      value: String(c.regressions),
      holds: c.regressions <= mr,
    });
  }
  const ok = checks.every((c) => c.holds);
  if (flags.json) io.out(JSON.stringify({ passed: ok, checks }, null, 2));
  else {
    io.out(
      renderTable(
        ['check', 'threshold', 'value', 'holds'],
        checks.map((c) => [c.name, c.threshold, c.value, c.holds ? 'yes' : 'NO']),
      ),
    );
    io.out(
      ok
        ? 'gate: all thresholds hold'
        : `gate: ${checks.filter((c) => !c.holds).length} threshold(s) do not hold`,
    );
  }
  return ok ? 0 : 1;
}
