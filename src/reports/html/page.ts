import { esc } from './escape.js';

/**
 * The page's policy: nothing may load (no scripts, fonts, images, frames or connections); inline
 * styles and data: images only. The page is opened from disk, often beside untrusted evidence.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const CSS = `
:root { color-scheme: light; --fg: #1f2933; --muted: #5f6b7a; --line: #d9dee5; --bg: #ffffff; --soft: #f4f6f9;
  --pass: #137333; --fail: #b3261e; --warn: #9a6700; --command: #2563eb; --file: #059669; --host: #d97706; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); }
main { max-width: 1200px; margin: 0 auto; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 8px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 16px 0 6px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px;
  overflow-wrap: anywhere; }
nav { font-size: 13px; margin: 8px 0 0; }
nav a { color: var(--muted); margin-right: 12px; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff; font-weight: 700; }
.badge.pass { background: var(--pass); } .badge.fail { background: var(--fail); }
.facts { margin: 8px 0; padding: 0; list-style: none; }
.facts li { margin: 2px 0; }
.warning { border: 2px solid var(--warn); background: #fff8e1; padding: 10px 14px; border-radius: 6px;
  margin: 12px 0; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.failed td:first-child { color: var(--fail); font-weight: 700; }
tr.passed td:first-child { color: var(--pass); }
.sev-critical, .sev-error { color: var(--fail); font-weight: 600; }
.sev-warning { color: var(--warn); font-weight: 600; }
.sev-pass { color: var(--pass); }
pre.output { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; background: #f6f8fa;
  padding: 8px 12px; overflow-x: auto; white-space: pre; border-left: 3px solid #d0d7de; }
.alert { border-left: 4px solid var(--fail); padding: 4px 12px; margin: 10px 0; background: #fdf3f2; }
.alert.alert-warning, .alert.alert-info { border-left-color: var(--warn); background: #fffbea; }
.chain { margin: 4px 0; padding-left: 20px; }
.more { color: var(--muted); font-style: italic; }
.graph-box { border: 1px solid var(--line); border-radius: 6px; padding: 8px; background: #fcfcfd; }
.graph-box svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; align-items: center; font-size: 13px; margin: 6px 0; }
.legend svg { vertical-align: middle; }
.toggle { font-size: 13px; margin: 6px 0; }
.view-all { display: none; }
#show-runtime:checked ~ .views .view-all { display: block; }
#show-runtime:checked ~ .views .view-behaviour { display: none; }
.multiples { display: flex; flex-wrap: wrap; gap: 12px; }
.multiple { border: 1px solid var(--line); border-radius: 6px; padding: 6px; width: 360px; background: #fcfcfd; }
.multiple.outlier { border: 2px solid var(--fail); }
.multiple h3 { margin: 0 0 4px; font-size: 13px; }
.multiple svg { display: block; width: 100%; height: auto; }
.heat td.cell { width: 56px; text-align: center; font-variant-numeric: tabular-nums; }
.heat td.none { background: repeating-linear-gradient(45deg, #f1f1f1, #f1f1f1 4px, #e4e4e4 4px, #e4e4e4 8px); }
.swatch.none { background: #e4e4e4; }
.heatmaps { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.swatch { display: inline-block; width: 44px; padding: 2px 0; text-align: center; font-size: 12px;
  border: 1px solid var(--line); }
.present { color: var(--pass); font-weight: 700; text-align: center; }
.absent { color: var(--muted); text-align: center; }
footer { margin: 40px 0 8px; font-size: 12px; color: var(--muted); }
`;

/** What a page may differ in: its policy, style, footer and inline scripts (reports site). */
export type PageOptions = {
  csp?: string;
  css?: string;
  footer?: string;
  scripts?: readonly string[];
};

/** A complete, self-contained HTML document. `title` is untrusted; `body` must already be escaped. */
export function htmlPage(title: string, body: string, options: PageOptions = {}): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${options.csp ?? CONTENT_SECURITY_POLICY}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title, 200)}</title>`,
    `<style>${options.css ?? CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    body,
    `<footer>${options.footer ?? 'Written by agentguard. A self-contained page: it loads nothing from anywhere.'}</footer>`,
    '</main>',
    ...(options.scripts ?? []).map((text) => `<script>${text}</script>`),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A table; header and cell texts must already be escaped. `numeric` marks right-aligned columns. */
export function htmlTable(
  headers: string[],
  rows: string[][],
  options: { numeric?: number[]; rowClass?: (index: number) => string | undefined; className?: string } = {},
): string {
  const numeric = new Set(options.numeric ?? []);
  const cls = (i: number) => (numeric.has(i) ? ' class="num"' : '');
  const head = `<tr>${headers.map((h, i) => `<th${cls(i)}>${h}</th>`).join('')}</tr>`;
  const body = rows.map((row, r) => {
    const rowClass = options.rowClass?.(r);
    const open = rowClass === undefined ? '<tr>' : `<tr class="${rowClass}">`;
    return `${open}${row.map((cell, i) => `<td${cls(i)}>${cell}</td>`).join('')}</tr>`;
  });
  const tableClass = options.className === undefined ? '' : ` class="${options.className}"`;
  return `<table${tableClass}><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`;
}

/** "…and N more things." when a list was cut. */
export function moreNote(more: number, what: string): string {
  return more > 0 ? `<p class="more">…and ${more} more ${what}.</p>` : '';
}
