/**
 * Hostile inputs and page invariants for the HTML report tests (imported only from tests).
 * Also used by test/html/html-pages.test.ts, which checks the same invariants on pages built from
 * real runs before opening them in a browser.
 */
import { homogeneousVsMixed } from '../../analysis/reliability/homogeneous-mixed.js';
import { findOutlier } from '../../analysis/reliability/outlier.js';
import { similarityMatrix } from '../../analysis/reliability/similarity.js';
import { handGraph } from '../../analysis/reliability/test-graphs.js';
import type { StarGraph } from '../../analysis/reliability/types.js';
import type { Alert } from '../../analysis/rules/types.js';
import { buildRunReport } from '../build.js';
import { fixtureAnalysis, fixtureBundle } from '../test-fixture.js';
import type { RunReport } from '../types.js';
import type { CompareInput } from './compare-page.js';
import { CONTENT_SECURITY_POLICY } from './page.js';

/** Names an agent could give files, commands and hosts to attack a page that shows them. */
export const HOSTILE = {
  script: '$WORKSPACE/<script>alert("pwned")</script>.txt',
  attribute: '$WORKSPACE/x" onmouseover="alert(1)" y=".js',
  title: '</title><script>alert(2)</script>',
  url: 'https://evil.example/beacon.png',
  svg: '<svg onload=alert(3)><image href="http://evil.example/i.png"/>',
  bidi: '$WORKSPACE/\u202Egnp.exe',
  newline: 'line1\nline2',
};

/** A run's report with hostile names in its diff, alerts and commands, and its hostile star graph. */
export function hostileRun(): { report: RunReport; graph: StarGraph } {
  const bundle = fixtureBundle({ run_id: 'run-<b>1</b>' });
  bundle.diff.files.push({ path: HOSTILE.script, status: 'added', added: 1, deleted: 0, binary: false });
  const alert: Alert = {
    rule: 'secrets-canary-read',
    class: 'secrets',
    severity: 'critical',
    description: 'A planted canary credential was read.',
    message: `cat opened ${HOSTILE.title}`,
    syscall: 'openat',
    path: HOSTILE.script,
    seq: 4,
    ts: 812,
    count: 2,
    process: {
      pid: 12,
      exe: '/usr/bin/cat',
      argv: ['cat', HOSTILE.svg],
      chain: [
        { pid: 12, exe: '/usr/bin/cat', argv: ['cat', HOSTILE.svg] },
        { pid: 10, exe: '/bin/sh', argv: ['sh', '-c', HOSTILE.attribute] },
      ],
    },
  };
  const report = buildRunReport(bundle, { ...fixtureAnalysis(), alerts: [alert] });
  report.isolation_warning = `ran without a sandbox ${HOSTILE.title}`;
  report.task.name = HOSTILE.title;
  return { report, graph: hostileGraph(report.run_id) };
}

export function hostileGraph(runId: string): StarGraph {
  const graph = handGraph(
    runId,
    {
      command: { 'npm test': 3, [HOSTILE.svg]: 1, curl: 1 },
      file: {
        [HOSTILE.script]: 2,
        [HOSTILE.attribute]: 1,
        [HOSTILE.bidi]: 1,
        [HOSTILE.newline]: 1,
        '$HOME/.aws/credentials': 1,
        '$WORKSPACE/src/slugify.js': 5,
        '/usr/lib/x86_64-linux-gnu/libc.so.6': 4,
        '/etc/ld.so.cache': 2,
      },
      host: { [HOSTILE.url]: 1, 'registry.npmjs.org': 2 },
    },
    {
      runtime: ['/usr/lib/x86_64-linux-gnu/libc.so.6', '/etc/ld.so.cache'],
      actions: { curl: [{ action: 'exec', count: 1, failed: 1 }] },
    },
  );
  for (const node of graph.nodes) if (node.name === '$HOME/.aws/credentials') node.canary = true;
  graph.root.label = HOSTILE.title;
  return graph;
}

/** A star graph of `files` files, `commands` commands and `hosts` hosts; every tenth file is runtime. */
export function bigGraph(runId: string, files: number, commands = 100, hosts = 20): StarGraph {
  const resources = {
    file: Object.fromEntries(
      Array.from({ length: files }, (_, i) => [`$WORKSPACE/dir${i % 50}/file${i}.js`, (i % 17) + 1]),
    ),
    command: Object.fromEntries(Array.from({ length: commands }, (_, i) => [`tool${i} --flag`, (i % 5) + 1])),
    host: Object.fromEntries(Array.from({ length: hosts }, (_, i) => [`host${i}.example`, (i % 3) + 1])),
  };
  const runtime = Array.from(
    { length: Math.floor(files / 10) },
    (_, i) => `$WORKSPACE/dir${(i * 10) % 50}/file${i * 10}.js`,
  );
  return handGraph(runId, resources, { runtime });
}

/** The comparison `compareRuns` would give for these graphs, one task per run as given. */
export function comparisonOf(graphs: StarGraph[], tasks: string[]): CompareInput {
  const similarity = similarityMatrix(graphs);
  const runs = graphs.map((g, i) => ({
    run_id: g.run_id,
    task: tasks[i] ?? 'task',
    agent: i % 2 === 0 ? 'codex 0.169.0' : 'mock-solve',
    result: i % 2 === 0 ? 'PASS' : 'FAIL',
    tracer: 'strace',
    syscall_evidence: true,
  }));
  const distinct = new Set(tasks);
  return {
    runs,
    similarity,
    outlier: findOutlier(graphs, similarity.overall),
    homogeneous_vs_mixed:
      distinct.size > 1
        ? homogeneousVsMixed(
            runs.map((r) => ({ run_id: r.run_id, task: r.task })),
            similarity.overall,
          )
        : null,
    notes: distinct.size > 1 ? [`runs of ${distinct.size} different tasks: ${HOSTILE.title}`] : [],
  };
}

/** Every attribute (name, value) of the page's markup. */
export function attributes(html: string): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) {
    for (const m of tag.matchAll(/\s([\w:-]+)(?:="([^"]*)")?/g))
      out.push({ name: m[1] as string, value: m[2] ?? '' });
  }
  return out;
}

/**
 * Why a page is not self-contained and inert, or [] when it is: the CSP in the head, no element
 * that can load or run anything, no event handler, no URL in any attribute or style (tooltips are
 * text), links only to anchors of the page itself.
 */
export function selfContainedProblems(html: string): string[] {
  const problems: string[] = [];
  const head = html.slice(0, html.indexOf('</head>'));
  const csp = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`;
  if (!head.includes(csp)) problems.push('no CSP meta element in the head');
  if (head.indexOf(csp) > head.indexOf('<title>')) problems.push('the CSP comes after the title');
  const tags = html.match(/<\/?[a-zA-Z][\w:-]*/g) ?? [];
  const forbidden =
    /^<\/?(script|link|img|image|iframe|frame|object|embed|base|form|audio|video|source|track|use|foreignobject|feimage)$/i;
  for (const tag of new Set(tags)) if (forbidden.test(tag)) problems.push(`element ${tag}>`);
  for (const { name, value } of attributes(html)) {
    const lower = name.toLowerCase();
    if (lower.startsWith('on')) problems.push(`event handler attribute ${name}`);
    if (
      ['src', 'srcset', 'action', 'formaction', 'xlink:href', 'background', 'poster', 'data'].includes(lower)
    )
      problems.push(`loading attribute ${name}`);
    if (lower === 'href' && !/^#[\w-]+$/.test(value)) problems.push(`href to ${value}`);
    if (lower !== 'title' && lower !== 'content' && /https?:|\/\/|url\(/i.test(value))
      problems.push(`URL in attribute ${name}="${value}"`);
  }
  const styles = (html.match(/<style>[\s\S]*?<\/style>/g) ?? []).join('');
  if (/url\(|@import|https?:/i.test(styles)) problems.push('the style sheet refers to something outside');
  if (/http-equiv="refresh"/i.test(head)) problems.push('a refresh meta element');
  return problems;
}
