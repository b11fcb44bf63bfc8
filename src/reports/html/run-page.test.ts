import { describe, expect, it } from 'vitest';
import { runGraph } from '../../analysis/run-graph.js';
import { buildRunReport } from '../build.js';
import { fixtureAnalysis, fixtureBundle, normaliseReportText } from '../test-fixture.js';
import { reportView } from '../view/report-view.js';
import { GRAPH_NODE_LIMIT } from './graph-model.js';
import { CONTENT_SECURITY_POLICY } from './page.js';
import { renderRunHtml } from './run-page.js';
import { bigGraph, HOSTILE, hostileRun, selfContainedProblems } from './test-pages.js';

const { report, graph } = hostileRun();
const html = renderRunHtml(reportView(report), graph);

/** The markup of one graph view. */
const viewOf = (page: string, view: 'behaviour' | 'all') => {
  const start = page.indexOf(`<div class="graph-box view-${view}">`);
  return start < 0 ? '' : page.slice(start, page.indexOf('</svg>', start));
};
const count = (text: string, part: string) => text.split(part).length - 1;

describe('renderRunHtml', () => {
  it('matches the report.html snapshot of the fixture run', () => {
    const bundle = fixtureBundle();
    const page = renderRunHtml(reportView(buildRunReport(bundle, fixtureAnalysis())), runGraph(bundle));
    expect(normaliseReportText(page)).toMatchSnapshot();
  });

  it('is a self-contained page under a strict CSP', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    );
    expect(CONTENT_SECURITY_POLICY).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    expect(selfContainedProblems(html)).toEqual([]);
  });

  it('escapes every hostile name, wherever it is shown', () => {
    expect(html).not.toMatch(/<script|<svg onload|<image|onmouseover="/i);
    for (const value of Object.values(HOSTILE))
      if (/[<>"\n\u202e]/.test(value)) expect(html).not.toContain(value);
    expect(html).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toContain('x&quot; onmouseover=&quot;alert(1)&quot;');
    expect(html).toContain('\\u202egnp.exe');
    expect(html).not.toContain('\u202E');
    expect(html).toContain('line1\\nline2');
    // The page title: exactly one <title> in the head.
    expect(count(html.slice(0, html.indexOf('</head>')), '<title>')).toBe(1);
    // URLs from the agent's world appear as text only.
    expect(html).toContain('https://evil.example/beacon.png');
    expect(selfContainedProblems(html)).toEqual([]);
  });

  it('shows the verdict, the isolation warning, checks, alerts with their process chain, diff and commands', () => {
    expect(html).toContain('<span class="badge fail" id="verdict">FAIL</span> score 25/100');
    expect(html).toContain('id="isolation-warning"');
    expect(html).toMatch(/<h2 id="checks">Checks \(2 failed of 4\)<\/h2>/);
    expect(html).toContain('<h2 id="alerts">Security alerts (1)</h2>');
    expect(html).toMatch(
      /<ol class="chain"><li>pid 12: <code>\/usr\/bin\/cat<\/code>.*<li>pid 10: <code>\/bin\/sh<\/code>/,
    );
    expect(html).toContain('<h2 id="diff">Diff</h2>');
    expect(html).toContain('<h2 id="commands">Commands</h2>');
    expect(html).toContain('<h2 id="activity">System activity</h2>');
  });

  it('draws the behaviour view by default and states how many runtime nodes it hides', () => {
    const behaviour = viewOf(html, 'behaviour');
    const all = viewOf(html, 'all');
    expect(html).toContain('2 runtime resources hidden (start-up noise).');
    expect(count(behaviour, '<g class="node ')).toBe(graph.nodes.length - 2);
    expect(count(all, '<g class="node ')).toBe(graph.nodes.length);
    expect(behaviour).not.toContain('libc.so.6');
    expect(all).toContain('libc.so.6');
    // Types keep their shapes: three commands as squares, hosts as diamonds, the canary ringed.
    expect(count(behaviour, '<g class="node t-command')).toBe(3);
    expect(count(behaviour, '<g class="node t-host')).toBe(2);
    expect(count(behaviour, ' canary"')).toBe(1);
    expect(behaviour).toContain('⚠ $HOME/.aws/credentials');
    // curl's only exec failed: its edge is dashed.
    expect(behaviour).toContain('stroke-dasharray="5 4"');
  });

  it('gives the same bytes for the same graph, whatever the order of its nodes and edges', () => {
    const shuffled = { ...graph, nodes: [...graph.nodes].reverse(), edges: [...graph.edges].reverse() };
    expect(renderRunHtml(reportView(report), shuffled)).toBe(html);
    expect(renderRunHtml(reportView(hostileRun().report), hostileRun().graph)).toBe(html);
  });

  it('stays bounded for a 5,000-node graph', () => {
    const big = bigGraph(report.run_id, 5000, 200, 30);
    const page = renderRunHtml(reportView(report), big);
    expect(page.length).toBeLessThan(250_000);
    const behaviourNodes = big.nodes.filter((n) => n.runtime === undefined).length;
    expect(count(viewOf(page, 'behaviour'), '<g class="node ')).toBe(GRAPH_NODE_LIMIT);
    expect(count(viewOf(page, 'all'), '<g class="node ')).toBe(GRAPH_NODE_LIMIT);
    expect(page).toContain(
      `and ${behaviourNodes - GRAPH_NODE_LIMIT} more not drawn (180 commands, 4480 files, 10 hosts)`,
    );
    // The flood of files does not push the commands and hosts out: each type gets a fair share.
    const behaviour = viewOf(page, 'behaviour');
    expect(count(behaviour, '<g class="node t-command')).toBe(20);
    expect(count(behaviour, '<g class="node t-host')).toBe(20);
    expect(page).toContain('500 runtime resources hidden');
    expect(selfContainedProblems(page)).toEqual([]);
  });

  it('says so when the graph is empty', () => {
    const empty = { ...graph, nodes: [], edges: [] };
    expect(renderRunHtml(reportView(report), empty)).toContain('No resources were recorded');
  });
});

describe('selfContainedProblems (the invariant the page tests rely on)', () => {
  it('catches what could load or run something', () => {
    const page = (body: string, csp = true) =>
      `<html><head>${csp ? `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">` : ''}<title>t</title><style>p{}</style></head><body>${body}</body></html>`;
    expect(selfContainedProblems(page('<p title="https://x.example">ok</p><a href="#top">top</a>'))).toEqual(
      [],
    );
    expect(selfContainedProblems(page('', false))).toContain('no CSP meta element in the head');
    expect(selfContainedProblems(page('<img src="x.png">'))).toEqual([
      'element <img>',
      'loading attribute src',
    ]);
    expect(selfContainedProblems(page('<a href="https://x.example">x</a>'))).toEqual([
      'href to https://x.example',
      'URL in attribute href="https://x.example"',
    ]);
    expect(selfContainedProblems(page('<svg onload="x()"></svg>'))).toEqual([
      'event handler attribute onload',
    ]);
    expect(selfContainedProblems(page('<p style="background:url(x)">x</p>'))).toEqual([
      'URL in attribute style="background:url(x)"',
    ]);
    expect(selfContainedProblems(page('<script>1</script>'))).toEqual([
      'element <script>',
      'element </script>',
    ]);
  });
});
