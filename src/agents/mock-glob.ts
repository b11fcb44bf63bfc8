/**
 * A small path-glob matcher for the mock agent, which must run as a standalone script with Node
 * built-ins only (so no picomatch). Semantics follow picomatch with `dot: true` for the subset it
 * supports: `**` as a whole segment (zero or more segments), `*` and `?` within a segment, `{a,b}`
 * alternatives (not nested); everything else is literal. Paths are relative, `/`-separated.
 */
export function globToRegExp(glob: string): RegExp {
  const segments = normaliseGlob(glob).split('/');
  const last = segments.length - 1;
  let source = '';
  segments.forEach((segment, index) => {
    if (segment === '**') {
      if (index === 0) source += last === 0 ? '.*' : '(?:.*/)?';
      else source += '(?:/.*)?';
      return;
    }
    // A leading `**` already ends in `/` when it matched anything.
    if (index > 0 && !(index === 1 && segments[0] === '**')) source += '/';
    source += segmentSource(segment);
  });
  return new RegExp(`^${source}$`);
}

/**
 * Whether `file` matches the config pattern `glob` under the rules agentguard's path checks use
 * (see `compileGlobs` in src/analysis/path-glob.ts), so that the mock agent tampers with a file the
 * test-tampering check counts as a test: a pattern without a `/` matches at any depth (`*.spec.js`
 * is `**\/*.spec.js`), a leading `/` anchors it at the root, and a pattern naming a folder covers
 * everything below it (`tests` and `tests/**` both cover `tests/unit/a.py`).
 */
export function matchesPathGlob(file: string, glob: string): boolean {
  let pattern = glob.replace(/^(\.\/)+/, '');
  const anchored = pattern.startsWith('/');
  pattern = pattern.replace(/^\/+/, '').replace(/\/+$/, '');
  if (pattern === '') return true;
  if (!anchored && !pattern.includes('/')) pattern = `**/${pattern}`;
  const re = globToRegExp(pattern);
  const parts = file.split('/');
  for (let n = parts.length; n >= 1; n--) {
    if (re.test(parts.slice(0, n).join('/'))) return true;
  }
  return false;
}

function normaliseGlob(glob: string): string {
  let g = glob.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  if (g.length > 1 && g.endsWith('/')) g = g.slice(0, -1);
  return g;
}

function segmentSource(segment: string): string {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] as string;
    if (ch === '*') {
      out += '[^/]*';
      while (segment[i + 1] === '*') i++;
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '{') {
      const close = segment.indexOf('}', i);
      if (close === -1) {
        out += escapeRegExp(ch);
        continue;
      }
      const options = segment.slice(i + 1, close).split(',');
      out += `(?:${options.map(segmentSource).join('|')})`;
      i = close;
    } else {
      out += escapeRegExp(ch);
    }
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
