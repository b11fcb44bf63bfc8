import type { BatchSummary, Row } from './batch-types.js';

/** XML 1.0 text: the five entities escaped, characters XML cannot carry dropped. */
export function xmlText(value: string): string {
  return (
    value
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing what XML 1.0 cannot carry is the point
      .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(r: Row): string {
  const name = xmlText(`${r.agent} · trial ${r.trial}`);
  const head = `    <testcase classname="${xmlText(r.task)}" name="${name}" time="${seconds(r.elapsed_ms)}"`;
  if (r.result === 'PASS') return `${head}/>`;
  if (r.result === 'ERROR') {
    const why = r.reason ?? 'the run ended before it could be judged';
    return `${head}>\n      <error message="${xmlText(why)}" type="ERROR">${xmlText(why)}</error>\n    </testcase>`;
  }
  const what = [
    ...(r.failed_checks.length ? [`failed checks: ${r.failed_checks.join(', ')}`] : []),
    ...(r.alerts.length ? [`alerts: ${r.alerts.join(', ')}`] : []),
  ].join('; ');
  const message = `FAIL score ${r.score ?? '-'}${what ? `: ${what}` : ''}`;
  const body = `${message}\nrun ${r.run_id ?? '-'} (${r.run_dir ?? '-'})`;
  return `${head}>\n      <failure message="${xmlText(message)}" type="FAIL">${xmlText(body)}</failure>\n    </testcase>`;
}

/**
 * junit.xml in the common (Jenkins/Ant) JUnit schema: one testsuite per task, one testcase per
 * attempt; FAIL is a failure, ERROR an error. Pure.
 */
export function renderBatchJunit(s: BatchSummary): string {
  const tasks = [...new Set(s.rows.map((r) => r.task))];
  const suites = tasks.map((task, id) => {
    const rows = s.rows.filter((r) => r.task === task);
    const count = (res: string) => rows.filter((r) => r.result === res).length;
    const time = rows.reduce((a, r) => a + r.elapsed_ms, 0);
    return [
      `  <testsuite name="${xmlText(task)}" id="${id}" package="agentguard" tests="${rows.length}" failures="${count('FAIL')}" errors="${count('ERROR')}" skipped="0" time="${seconds(time)}" timestamp="${s.created_at.slice(0, 19)}" hostname="localhost">`,
      '    <properties>',
      `      <property name="batch_id" value="${xmlText(s.batch_id)}"/>`,
      '    </properties>',
      ...rows.map(testcase),
      '    <system-out/>',
      '    <system-err/>',
      '  </testsuite>',
    ].join('\n');
  });
  const total = (res: string) => s.rows.filter((r) => r.result === res).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agentguard ${xmlText(s.kind)} ${xmlText(s.batch_id)}" tests="${s.rows.length}" failures="${total('FAIL')}" errors="${total('ERROR')}" time="${seconds(s.rows.reduce((a, r) => a + r.elapsed_ms, 0))}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
