/**
 * Allow-list matching for `hostmatch`, in the syntax of the task's `network.allow`: `name`,
 * `*.domain` (subdomains at any depth, not the domain itself), an IP literal, `*`, each with an
 * optional `:port`. An entry with a port matches only that port, unless the subject has no port
 * (a DNS name), where names alone are compared. Names compare case-insensitively, one trailing dot
 * ignored. Pure.
 */
type Entry = { kind: 'any' | 'exact' | 'subdomains'; host: string; port?: number };

function splitHostPort(text: string): { host: string; port?: number } {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close > 0) {
      const rest = text.slice(close + 1);
      const host = text.slice(1, close);
      return rest.startsWith(':') && /^\d+$/.test(rest.slice(1))
        ? { host, port: Number(rest.slice(1)) }
        : { host };
    }
  }
  const colons = text.split(':').length - 1;
  if (colons === 1) {
    const at = text.indexOf(':');
    const port = text.slice(at + 1);
    if (/^\d+$/.test(port)) return { host: text.slice(0, at), port: Number(port) };
  }
  return { host: text };
}

function normal(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function parseEntry(text: string): Entry | undefined {
  const { host, port } = splitHostPort(text.trim());
  if (host === '') return undefined;
  const withPort = (e: Entry): Entry => (port === undefined ? e : { ...e, port });
  if (host === '*') return withPort({ kind: 'any', host: '*' });
  if (host.startsWith('*.')) return withPort({ kind: 'subdomains', host: normal(host.slice(2)) });
  return withPort({ kind: 'exact', host: normal(host) });
}

/** Compiles allow entries into a test of `host[:port]` / `[v6]:port` subjects. Unparsable entries never match. */
export function compileHostMatch(entries: readonly string[]): (subject: string) => boolean {
  const parsed = entries.map(parseEntry).filter((e): e is Entry => e !== undefined);
  return (subject) => {
    const s = splitHostPort(subject);
    const host = normal(s.host);
    if (host === '') return false;
    for (const e of parsed) {
      if (e.port !== undefined && s.port !== undefined && e.port !== s.port) continue;
      if (e.kind === 'any') return true;
      if (e.kind === 'exact' && host === e.host) return true;
      if (e.kind === 'subdomains' && host.endsWith(`.${e.host}`)) return true;
    }
    return false;
  };
}
