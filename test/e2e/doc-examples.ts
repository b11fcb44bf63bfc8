import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One `agentguard …` command line of the docs: where it is, and its words after `agentguard`. */
export type DocExample = { file: string; line: number; text: string; argv: string[] };

/**
 * Every agentguard command line in the fenced code blocks of README.md and docs/*.md, as a reader
 * would type it: `$ `, `npx ` and `sudo -E ` dropped, a trailing `# comment`, a redirection or pipe
 * left out, `\` continuations joined, `[--optional N]` groups and `...` left out (they are notation).
 */
export function docExamples(root: string): DocExample[] {
  const files = [
    path.join(root, 'README.md'),
    ...readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => path.join(root, 'docs', f)),
  ];
  return files.flatMap((file) => examplesOf(path.relative(root, file), readFileSync(file, 'utf8')));
}

function examplesOf(file: string, text: string): DocExample[] {
  const out: DocExample[] = [];
  const lines = text.split('\n');
  let fenced = false;
  for (let i = 0; i < lines.length; i += 1) {
    const raw = lines[i] as string;
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) continue;
    let joined = raw;
    const first = i + 1;
    while (/\\\s*$/.test(joined) && i + 1 < lines.length) {
      i += 1;
      joined = `${joined.replace(/\\\s*$/, ' ')}${lines[i]}`;
    }
    const m = joined.match(/^\s*(?:\$ )?(?:sudo -E )?(?:npx )?agentguard(?= |$)(.*)$/);
    if (!m) continue;
    const body = (m[1] ?? '')
      .replace(/\s#.*$/, '')
      .replace(/\[[^\]]*\]/g, ' ')
      .replace(/\s(\||>|2>|&&|;).*$/, '')
      .replace(/(^|\s)\.\.\.(?=\s|$)/g, ' ');
    // `agentguard view: …` is what a command printed, not a command.
    if (/^\S*:(\s|$)/.test(body.trim())) continue;
    out.push({ file, line: first, text: joined.trim(), argv: body.trim().split(/\s+/).filter(Boolean) });
  }
  return out;
}

/** A word the docs write for the reader to fill in: `<run-id>`, `RUN_DIR`, `CONFIG`, `$X`. */
export function isPlaceholder(word: string): boolean {
  return /[<>$]/.test(word) || /^[A-Z][A-Z0-9_]*(\.[a-z]+)?$/.test(word) || /\.\.\./.test(word);
}
