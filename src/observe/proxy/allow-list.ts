import { isIP } from 'node:net';

/** One parsed allow-list entry. `host` is normalised; `port` undefined means any port. */
export type AllowEntry = {
  text: string;
  kind: 'any' | 'exact' | 'subdomains' | 'ip';
  host: string;
  port?: number;
};

export type AllowEntryParse = { ok: true; entry: AllowEntry } | { ok: false; issue: string };

export type AllowDecision = { allowed: boolean; reason: string };

/**
 * Canonical text of an IP literal (brackets removed, IPv6 compressed and lower-cased), or undefined
 * when `host` is not one. Zone ids (`fe80::1%eth0`) are not canonicalised and never match an entry.
 */
export function canonicalIp(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return undefined;
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/**
 * The form every comparison uses: lower case, one trailing dot dropped, IP literals canonical.
 * Punycode and Unicode names are left as they are: `xn--bcher-kva.example` and `bücher.example`
 * are different names here, so an entry must be written in the form clients send.
 */
export function normalizeHost(host: string): string {
  const ip = canonicalIp(host);
  if (ip !== undefined) return ip;
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

// Splits `host[:port]`, `[v6][:port]` and bare IPv6 into host text and port text.
function splitHostPort(text: string): { host: string; port?: string } {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return { host: text };
    const rest = text.slice(close + 1);
    const host = text.slice(0, close + 1);
    return rest.startsWith(':') ? { host, port: rest.slice(1) } : { host: rest === '' ? host : text };
  }
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text };
  const at = text.indexOf(':');
  return { host: text.slice(0, at), port: text.slice(at + 1) };
}

/** Parses one entry of a task's network allow list: `example.com`, `*.example.com:443`, `10.0.0.5`, `[::1]:8080`, `*`. */
export function parseAllowEntry(text: string): AllowEntryParse {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, issue: 'empty entry' };
  if (trimmed.includes('://') || trimmed.includes('/')) {
    return { ok: false, issue: `'${text}' is not a host: write host[:port] without scheme or path` };
  }
  const split = splitHostPort(trimmed);
  let port: number | undefined;
  if (split.port !== undefined) {
    port = parsePort(split.port);
    if (port === undefined) return { ok: false, issue: `'${text}' has an invalid port (1-65535)` };
  }
  const hostText = split.host;
  const withPort = (entry: Omit<AllowEntry, 'text' | 'port'>): AllowEntryParse => ({
    ok: true,
    entry: port === undefined ? { text, ...entry } : { text, ...entry, port },
  });
  if (hostText === '*') return withPort({ kind: 'any', host: '*' });
  const ip = canonicalIp(hostText);
  if (ip !== undefined) return withPort({ kind: 'ip', host: ip });
  if (hostText.startsWith('['))
    return { ok: false, issue: `'${text}' is not a valid bracketed IPv6 address` };
  const wildcard = hostText.startsWith('*.');
  const name = normalizeHost(wildcard ? hostText.slice(2) : hostText);
  if (name === '' || name.includes('*') || name.startsWith('.') || name.includes('..')) {
    return { ok: false, issue: `'${text}': a wildcard may only be a leading '*.' before a name` };
  }
  if (/[\s@:]/.test(name)) return { ok: false, issue: `'${text}' contains a character a host name cannot` };
  if (wildcard && canonicalIp(name) !== undefined) {
    return { ok: false, issue: `'${text}': wildcards apply to names, not IP addresses` };
  }
  return withPort({ kind: wildcard ? 'subdomains' : 'exact', host: name });
}

/** Parses every entry; the issues name each bad entry so the config loader can report them. */
export function parseAllowList(entries: readonly string[]): { entries: AllowEntry[]; issues: string[] } {
  const parsed: AllowEntry[] = [];
  const issues: string[] = [];
  for (const text of entries) {
    const result = parseAllowEntry(text);
    if (result.ok) parsed.push(result.entry);
    else issues.push(result.issue);
  }
  return { entries: parsed, issues };
}

function hostMatches(entry: AllowEntry, host: string, hostIsIp: boolean): boolean {
  switch (entry.kind) {
    case 'any':
      return true;
    case 'ip':
      return hostIsIp && entry.host === host;
    case 'exact':
      return !hostIsIp && entry.host === host;
    case 'subdomains':
      // The dot before the suffix is what keeps `evilexample.com` out of `*.example.com`.
      return !hostIsIp && host.endsWith(`.${entry.host}`);
  }
}

/**
 * Is a request for `host:port` allowed by the list? Pure. Invalid entries never match (validate the
 * list with `parseAllowList` when loading config). `*.example.com` matches subdomains at any depth
 * but not `example.com` itself; an entry without a port matches every port.
 */
export function matchAllow(
  host: string,
  port: number,
  allow: readonly (string | AllowEntry)[],
): AllowDecision {
  const normalized = normalizeHost(host);
  if (normalized === '') return { allowed: false, reason: 'empty host' };
  const hostIsIp = canonicalIp(normalized) !== undefined;
  let portMismatch: AllowEntry | undefined;
  for (const item of allow) {
    const entry = typeof item === 'string' ? parseAllowEntry(item) : { ok: true as const, entry: item };
    if (!entry.ok || !hostMatches(entry.entry, normalized, hostIsIp)) continue;
    if (entry.entry.port === undefined || entry.entry.port === port) {
      return { allowed: true, reason: `allow list entry '${entry.entry.text}'` };
    }
    portMismatch ??= entry.entry;
  }
  if (portMismatch !== undefined) {
    return { allowed: false, reason: `port ${port} not allowed (allow list has '${portMismatch.text}')` };
  }
  return { allowed: false, reason: 'not in allow list' };
}
