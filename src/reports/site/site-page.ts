import { htmlPage } from '../html/page.js';

/**
 * The site's pages may load nothing: no connections, frames, fonts or images from anywhere (the
 * same policy as report.html), and run only the scripts whose hashes are given.
 */
export function siteCsp(scriptSources: readonly string[] = []): string {
  const script = scriptSources.length > 0 ? `; script-src ${scriptSources.join(' ')}` : '';
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'${script}`;
}

const CSS = `
:root { color-scheme: light; --fg: #1f2933; --muted: #5f6b7a; --line: #d9dee5; --soft: #f4f6f9;
  --pass: #137333; --fail: #b3261e; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: #fff; }
main { max-width: 1400px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 8px; } h2 { font-size: 17px; margin: 28px 0 8px; }
table { border-collapse: collapse; margin: 6px 0; width: 100%; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.mono { font-family: ui-monospace, monospace; font-size: 12.5px; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.sev-pass { color: var(--pass); font-weight: 700; } .sev-error { color: var(--fail); font-weight: 700; }
tr.failed td:first-child { border-left: 4px solid var(--fail); } tr.passed td:first-child { border-left: 4px solid var(--pass); }
form#filters { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: end; padding: 10px; background: var(--soft);
  border: 1px solid var(--line); border-radius: 6px; }
form#filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
.facts { list-style: none; padding: 0; } .facts li { margin: 2px 0; }
footer { margin: 40px 0 8px; font-size: 12px; color: var(--muted); }
`;

/** A complete page of the site. `title` is untrusted; `body` must already be escaped. */
export function sitePage(
  title: string,
  body: string,
  scripts: { source: string; text: string }[] = [],
  footer = 'Written by agentguard reports site. Opens from disk; it loads nothing from anywhere.',
): string {
  return htmlPage(title, body, {
    csp: siteCsp(scripts.map((s) => s.source)),
    css: CSS,
    footer,
    scripts: scripts.map((s) => s.text),
  });
}

/**
 * JSON inside `<script type="application/json">`: `<`, `>` and `&` as \u escapes, so no value can
 * close the element or open a comment, and U+2028/2029 likewise.
 */
export function embeddedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
