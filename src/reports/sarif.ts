import type * as Sarif from 'sarif';
import type { Alert } from '../analysis/rules/types.js';
import type { CheckResult, EvidenceItem } from '../analysis/types.js';
import type { Severity } from '../config/schema.js';
import type { RunReport } from './types.js';

type Level = NonNullable<Sarif.Result['level']>;
const LEVEL: Record<Severity, Level> = {
  critical: 'error',
  error: 'error',
  warning: 'warning',
  info: 'note',
};

/** A rule of the run's driver; agentguard always gives it an id and a name. */
type SarifRule = Sarif.ReportingDescriptor & { name: string };

/**
 * SARIF 2.1.0 for the failed checks and the security alerts of one run. Workspace paths are
 * relative to the WORKSPACE base (so code-scanning UIs can show them in the repository); paths
 * outside the workspace (a read of ~/.ssh) keep their absolute file URI.
 */
export function renderSarif(report: RunReport, version: string): string {
  const workspace = `${report.run_dir}/repo`;
  const rules: SarifRule[] = [];
  const index = new Map<string, number>();
  const ruleIndex = (rule: SarifRule): number => {
    const known = index.get(rule.id);
    if (known !== undefined) return known;
    index.set(rule.id, rules.length);
    rules.push(rule);
    return rules.length - 1;
  };
  const results: Sarif.Result[] = [];
  for (const check of report.checks.filter((c) => !c.passed)) results.push(checkResult(check, ruleIndex));
  for (const alert of report.alerts) results.push(alertResult(alert, workspace, ruleIndex));

  const sarif: Sarif.Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'agentguard',
            version,
            informationUri: 'https://github.com/agentguard/agentguard',
            rules,
          },
        },
        originalUriBaseIds: { WORKSPACE: { uri: fileUri(`${workspace}/`) } },
        invocations: [{ executionSuccessful: true, endTimeUtc: report.finished_at }],
        results,
        properties: {
          run_id: report.run_id,
          result: report.result,
          score: report.score,
          task: report.task.name,
          agent: report.agent.name,
        },
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

function checkResult(check: CheckResult, ruleIndex: (r: SarifRule) => number): Sarif.Result {
  const i = ruleIndex({
    id: `check/${check.id}`,
    name: check.id,
    shortDescription: { text: `agentguard check ${check.id}` },
    defaultConfiguration: { level: LEVEL[check.severity] },
    properties: { kind: 'check', severity: check.severity },
  });
  const locations = check.evidence
    .filter((e): e is EvidenceItem & { path: string } => e.path !== undefined)
    .slice(0, 50);
  const result: Sarif.Result = {
    ruleId: `check/${check.id}`,
    ruleIndex: i,
    level: LEVEL[check.severity],
    message: { text: check.message },
    properties: { severity: check.severity },
  };
  if (locations.length > 0) {
    result.locations = locations.map((e) => ({
      physicalLocation: {
        artifactLocation: { uri: encodePath(e.path), uriBaseId: 'WORKSPACE' },
        ...(e.line !== undefined && e.line > 0 ? { region: { startLine: e.line } } : {}),
      },
    }));
  }
  return result;
}

function alertResult(alert: Alert, workspace: string, ruleIndex: (r: SarifRule) => number): Sarif.Result {
  const i = ruleIndex({
    id: `rule/${alert.rule}`,
    name: alert.rule,
    shortDescription: { text: alert.description },
    defaultConfiguration: { level: LEVEL[alert.severity] },
    properties: { kind: 'security-rule', severity: alert.severity, class: alert.class },
  });
  const result: Sarif.Result = {
    ruleId: `rule/${alert.rule}`,
    ruleIndex: i,
    level: LEVEL[alert.severity],
    message: { text: alert.message },
    properties: {
      class: alert.class,
      severity: alert.severity,
      syscall: alert.syscall,
      count: alert.count,
      seq: alert.seq,
      ts_ms: alert.ts,
      phase: alert.phase ?? 'agent',
      ...(alert.host ? { host: alert.host, port: alert.port ?? null } : {}),
      process: alert.process,
    },
  };
  if (alert.path) {
    const inside = alert.path.startsWith(`${workspace}/`);
    result.locations = [
      {
        physicalLocation: {
          artifactLocation: inside
            ? { uri: encodePath(alert.path.slice(workspace.length + 1)), uriBaseId: 'WORKSPACE' }
            : { uri: fileUri(alert.path) },
        },
      },
    ];
  }
  return result;
}

function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

function fileUri(absolute: string): string {
  return `file://${encodePath(absolute)}`;
}
