import type { TestCaseResult, TestCaseStatus, TestReportFormat } from '../../evidence/types.js';

/** Raised whenever a reader reads differently: cached baseline test names are keyed by it. */
export const REPORT_READERS_VERSION = 2;

/**
 * The test runners' own reports, read into one list of named outcomes. Each reader takes the text
 * as the runner wrote it and never throws: what it cannot read is simply not a test case.
 */
export const REPORT_READERS: Record<TestReportFormat, (text: string) => TestCaseResult[]> = {
  junit: parseJunit,
  tap: parseTap,
  'go-json': parseGoJson,
  cargo: parseCargo,
  unittest: parseUnittest,
  'jest-json': parseJestJson,
};

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attrs);
  return m ? unescapeXml(m[1] ?? m[2] ?? '') : undefined;
}

/**
 * JUnit XML (pytest `--junitxml`, node's junit reporter, vitest's): each `<testcase>`, named by its
 * classname, enclosing suites and name; failed with a `<failure>` or `<error>`, skipped with `<skipped>`.
 */
export function parseJunit(xml: string): TestCaseResult[] {
  const out: TestCaseResult[] = [];
  const suites: string[] = [];
  let open: { name: string; status: TestCaseStatus } | null = null;
  const tag = /<(\/?)(testsuites|testsuite|testcase|failure|error|skipped)\b([^>]*?)(\/?)>/g;
  for (let m = tag.exec(xml); m !== null; m = tag.exec(xml)) {
    const [, closing, kind, attrs = '', selfClosing] = m;
    if (kind === 'testsuite') {
      if (closing) suites.pop();
      else if (!selfClosing) suites.push(attr(attrs, 'name') ?? '');
    } else if (kind === 'testcase') {
      if (closing) {
        if (open) out.push(open);
        open = null;
        continue;
      }
      const name = [attr(attrs, 'classname'), ...suites, attr(attrs, 'name')].filter((p) => p).join(' > ');
      const status: TestCaseStatus = attr(attrs, 'failure') !== undefined ? 'failed' : 'passed';
      if (selfClosing) out.push({ name, status });
      else open = { name, status };
    } else if (open && !closing && (kind === 'failure' || kind === 'error')) {
      open.status = 'failed';
    } else if (open && !closing && kind === 'skipped' && open.status !== 'failed') {
      open.status = 'skipped';
    }
  }
  return out;
}

/**
 * TAP (node's test runner when its output is not a terminal, and many others): `ok N - name` and
 * `not ok N - name`, with `# SKIP`/`# TODO` directives; nested subtests are named under their parent.
 */
export function parseTap(text: string): TestCaseResult[] {
  const out: TestCaseResult[] = [];
  // node prints `# Subtest: name` before a subtest's lines, indented to its depth.
  const subtests: { indent: number; name: string }[] = [];
  for (const line of text.split('\n')) {
    const sub = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (sub) {
      const indent = sub[1]?.length ?? 0;
      while (subtests.length > 0 && (subtests.at(-1)?.indent ?? 0) >= indent) subtests.pop();
      subtests.push({ indent, name: sub[2] ?? '' });
      continue;
    }
    const m = /^(\s*)(not ok|ok)\b(?:\s+\d+)?(?:\s*-)?\s*([^#]*?)\s*(?:#\s*(\w+).*)?$/.exec(line);
    if (!m) continue;
    const indent = m[1]?.length ?? 0;
    const parents = subtests.filter((s) => s.indent < indent).map((s) => s.name);
    const directive = (m[4] ?? '').toUpperCase();
    const status: TestCaseStatus =
      directive === 'SKIP' || directive === 'TODO' ? 'skipped' : m[2] === 'ok' ? 'passed' : 'failed';
    out.push({ name: [...parents, m[3] ?? ''].join(' > '), status });
  }
  return out;
}

/** `go test -json`: the pass, fail and skip events of each named test (package events are not tests). */
export function parseGoJson(text: string): TestCaseResult[] {
  const out = new Map<string, TestCaseStatus>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let e: { Action?: unknown; Package?: unknown; Test?: unknown };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof e.Test !== 'string' || typeof e.Action !== 'string') continue;
    const status = ({ pass: 'passed', fail: 'failed', skip: 'skipped' } as const)[e.Action as 'pass'];
    if (status) out.set(`${String(e.Package ?? '')} ${e.Test}`, status);
  }
  return [...out].map(([name, status]) => ({ name, status }));
}

/** cargo test's libtest lines: `test path::name ... ok|FAILED|ignored`. */
export function parseCargo(text: string): TestCaseResult[] {
  const out: TestCaseResult[] = [];
  for (const m of text.matchAll(/^test (\S+)(?: - should panic)? \.\.\. (ok|FAILED|ignored)\b/gm)) {
    const status: TestCaseStatus = m[2] === 'ok' ? 'passed' : m[2] === 'ignored' ? 'skipped' : 'failed';
    out.push({ name: m[1] ?? '', status });
  }
  return out;
}

/** python's unittest with `-v` (stderr): `test_x (module.Class.test_x) ... ok|FAIL|ERROR|skipped …`. */
export function parseUnittest(text: string): TestCaseResult[] {
  const out: TestCaseResult[] = [];
  const line =
    /^(\w+) \(([\w.]+)\)(?:\n[^\n]*?)?\s\.\.\.\s(ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)$/gm;
  for (const m of text.matchAll(line)) {
    const verdict = m[3] ?? '';
    const status: TestCaseStatus =
      verdict === 'ok' || verdict === 'expected failure'
        ? 'passed'
        : verdict.startsWith('skipped')
          ? 'skipped'
          : 'failed';
    const where = m[2] ?? '';
    // Python 3.11+ names the test in the parentheses (module.Class.test_x); older ones the class.
    out.push({ name: where.endsWith(`.${m[1]}`) ? where : `${where}.${m[1]}`, status });
  }
  return out;
}

/** jest's `--json` report: every assertion result by its full name. */
export function parseJestJson(text: string): TestCaseResult[] {
  let report: { testResults?: { assertionResults?: { fullName?: unknown; status?: unknown }[] }[] };
  try {
    report = JSON.parse(text);
  } catch {
    return [];
  }
  const out: TestCaseResult[] = [];
  for (const file of report.testResults ?? []) {
    for (const a of file.assertionResults ?? []) {
      if (typeof a.fullName !== 'string') continue;
      const status: TestCaseStatus =
        a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped';
      out.push({ name: a.fullName, status });
    }
  }
  return out;
}
