/**
 * What a request asks for, decided from its method and path alone (pure): the viewer serves the
 * `reports site` layout (index.html, runs/<name>.html, batches/<name>.html) plus a live page and
 * its event stream per run folder. Every name is checked here, before anything touches the disk.
 */
export type Route =
  | { kind: 'index' }
  | { kind: 'run'; file: string }
  | { kind: 'batch'; file: string }
  | { kind: 'live'; runId: string }
  | { kind: 'live-events'; runId: string }
  | { kind: 'not-found' }
  | { kind: 'bad-method' };

/** A page name `siteFileName` makes: a lower-case plain id, or `id-<hash>`; never a dot file or a path. */
const SITE_FILE = /^[a-z0-9][a-z0-9._-]{0,99}\.html$/;
/** A run folder's name as agentguard makes them (and any plain name): one path segment, no dot first. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function isRunId(id: string): boolean {
  return RUN_ID.test(id);
}

export function route(method: string | undefined, pathname: string): Route {
  if (method !== 'GET' && method !== 'HEAD') return { kind: 'bad-method' };
  const segments = decodeSegments(pathname);
  if (segments === null) return { kind: 'not-found' };
  const [first, second, third, ...rest] = segments;
  if (rest.length > 0) return { kind: 'not-found' };
  if (segments.length === 0 || (segments.length === 1 && first === 'index.html')) return { kind: 'index' };
  if (segments.length === 2 && second !== undefined && SITE_FILE.test(second)) {
    if (first === 'runs') return { kind: 'run', file: second };
    if (first === 'batches') return { kind: 'batch', file: second };
  }
  if (first === 'live' && second !== undefined && RUN_ID.test(second)) {
    if (segments.length === 2) return { kind: 'live', runId: second };
    if (third === 'events') return { kind: 'live-events', runId: second };
  }
  return { kind: 'not-found' };
}

/** The path's segments, percent-decoded; null when one cannot be decoded or holds a separator. */
function decodeSegments(pathname: string): string[] | null {
  if (!pathname.startsWith('/')) return null;
  const out: string[] = [];
  for (const raw of pathname.slice(1).split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    // `%2F`, `%5C` or a NUL decoded inside one segment is an attempt to smuggle a path; `.` and
    // `..` never name anything the viewer serves.
    if (/[/\\\0]/.test(segment) || segment === '.' || segment === '..') return null;
    out.push(segment);
  }
  return out;
}
