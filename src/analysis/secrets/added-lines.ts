/** One line the patch adds, located in the new version of its file. */
export type AddedLine = { path: string; line: number; text: string };

export type PatchLines = {
  added: AddedLine[];
  /** Files that have at least one hunk, to spot changed files missing from the patch. */
  hunkFiles: Set<string>;
};

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * The added lines of a unified git diff. Hunk line counts decide where a hunk ends, so an added
 * line whose own text starts with `++` is not mistaken for a `+++` file header.
 */
export function addedLines(patch: string): PatchLines {
  const added: AddedLine[] = [];
  const hunkFiles = new Set<string>();
  let file: string | null = null;
  let oldLeft = 0;
  let newLeft = 0;
  let newLine = 0;

  for (const line of patch.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      const mark = line[0];
      if (mark === '+') {
        if (file !== null) added.push({ path: file, line: newLine, text: line.slice(1) });
        newLine++;
        newLeft--;
        continue;
      }
      if (mark === '-') {
        oldLeft--;
        continue;
      }
      // Some tools strip the single space of an empty context line.
      if (mark === ' ' || line === '') {
        oldLeft--;
        newLeft--;
        newLine++;
        continue;
      }
      if (mark === '\\') continue;
      // Anything else means the hunk ended early (a cut or malformed patch): read it as a header.
      oldLeft = 0;
      newLeft = 0;
    }
    if (line.startsWith('diff --git ')) {
      file = pathFromDiffLine(line.slice('diff --git '.length));
    } else if (line.startsWith('+++ ')) {
      file = headerPath(line.slice(4));
    } else if (line.startsWith('@@ ')) {
      const m = HUNK_HEADER.exec(line);
      if (!m) continue;
      oldLeft = m[1] === undefined ? 1 : Number(m[1]);
      newLine = Number(m[2]);
      newLeft = m[3] === undefined ? 1 : Number(m[3]);
      if (file !== null) hunkFiles.add(file);
    }
  }
  return { added, hunkFiles };
}

/** The path of a `+++ b/path` header; null for `/dev/null` (a deleted file adds nothing). */
function headerPath(raw: string): string | null {
  // git puts a tab after a name that contains a space, so the name's end is unambiguous.
  const name = raw.endsWith('\t') ? raw.slice(0, -1) : raw;
  if (name === '/dev/null') return null;
  const unquoted = name.startsWith('"') ? unquoteCString(name) : name;
  return unquoted.replace(/^b\//, '');
}

/**
 * A fallback name from `diff --git a/P b/P` for sections without a `+++` header, only when both
 * sides agree (with spaces in names the line is otherwise ambiguous).
 */
function pathFromDiffLine(rest: string): string | null {
  const half = (rest.length - 5) / 2;
  if (!Number.isInteger(half) || half <= 0) return null;
  const p = rest.slice(2, 2 + half);
  return rest === `a/${p} b/${p}` ? p : null;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** git quotes unusual names C-style (`"b/caf\303\251.txt"`); octal escapes are UTF-8 bytes. */
export function unquoteCString(quoted: string): string {
  const body = quoted.replace(/^"/, '').replace(/"$/, '');
  const encoder = new TextEncoder();
  const bytes: number[] = [];
  let i = 0;
  while (i < body.length) {
    const code = body.codePointAt(i) ?? 0;
    if (code !== 92) {
      const ch = String.fromCodePoint(code);
      bytes.push(...encoder.encode(ch));
      i += ch.length;
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 4;
    } else {
      const next = body[i + 1] ?? '';
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 2;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
