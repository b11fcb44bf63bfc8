/**
 * The agent's changes as a reader wants them on the report page: each file's hunks, bounded so that
 * a rewrite of a generated file cannot bury the page. From the unified patch the harness took
 * (git's own text, cut at its byte limit), never from the agent's folder.
 */
export type ReportHunks = { path: string; lines: string[]; omitted: number };

/** Lines shown per file, and over all files; the report names what it left out. */
export const HUNK_LINES_PER_FILE = 120;
export const HUNK_LINES_TOTAL = 600;
/** A longer line is cut: a minified file is one line. */
const LINE_CHARS = 400;

/** Each file's hunk lines (`@@` headers and the changed and context lines), in patch order. */
export function patchHunks(patch: string): { files: ReportHunks[]; omitted_files: number } {
  const files: ReportHunks[] = [];
  let omittedFiles = 0;
  let budget = HUNK_LINES_TOTAL;
  let current: { path: string; lines: string[]; omitted: number; inHunk: boolean } | null = null;
  const close = () => {
    if (current === null) return;
    if (current.lines.length > 0)
      files.push({ path: current.path, lines: current.lines, omitted: current.omitted });
    else if (current.omitted > 0) omittedFiles += 1;
    current = null;
  };
  for (const raw of patch.split('\n')) {
    const header = raw.match(/^diff --git a\/(.*) b\/(.*)$/);
    if (header) {
      close();
      current = { path: header[2] ?? header[1] ?? '', lines: [], omitted: 0, inHunk: false };
      continue;
    }
    if (current === null) continue;
    const c: { lines: string[]; omitted: number; inHunk: boolean } = current;
    if (raw.startsWith('@@')) c.inHunk = true;
    if (!c.inHunk) continue;
    if (!/^[@+\- \\]/.test(raw)) continue;
    if (c.lines.length < HUNK_LINES_PER_FILE && budget > 0) {
      c.lines.push(raw.length > LINE_CHARS ? `${raw.slice(0, LINE_CHARS)}…` : raw);
      budget -= 1;
    } else c.omitted += 1;
  }
  close();
  return { files, omitted_files: omittedFiles };
}
