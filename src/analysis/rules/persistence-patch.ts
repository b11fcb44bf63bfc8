import type { DiffFile } from '../../evidence/types.js';
import { unquoteCString } from '../secrets/added-lines.js';
import { baseName } from './program.js';
import type { PatchFinding } from './types.js';
import type { PatchFindingKind } from './vocabulary.js';

/**
 * Install-time code hidden in files whose path says too little: a `postinstall` script in
 * package.json, a `cmdclass` in setup.py, a `curl … | sh` in a Makefile. Only the ADDED lines of
 * the agent's diff are inspected, so an existing hook the task came with is not the agent's doing.
 * Pure; the matcher turns findings into alerts attributed to the last process that wrote the file.
 */

const PIPE_TO_SHELL = [
  /\b(curl|wget|fetch)\b[^|\n]*\|\s*(sudo\s+)?(env\s+)?(ba|z|da|k)?sh\b/,
  /\b(curl|wget)\b[^|\n]*\|\s*(sudo\s+)?(python\d*|node|perl|ruby)\b/,
  /\b(ba|z|da)?sh\s+(-c\s+)?["']?\$\(\s*(curl|wget)\b/,
  /<\(\s*(curl|wget)\b/,
  /\b(source|\.)\s+<\(\s*(curl|wget)\b/,
];

const ENCODED_EXEC = [
  /\bbase64\s+(-d|--decode|-D)\b[^|\n]*\|\s*(sudo\s+)?(ba|z|da)?sh\b/,
  /\b(exec|eval)\s*\(.*\b(b64decode|decodebytes|decodestring)\s*\(/,
  /\b(eval|Function)\s*\(.*\b(atob\s*\(|['"]base64['"])/,
  /\bnew\s+Function\s*\(.*\b(atob\s*\(|['"]base64['"])/,
];

const NPM_HOOK =
  /"(preinstall|install|postinstall|prepare|prepublish|prepublishOnly|prepack|postpack|preuninstall|uninstall|postuninstall)"\s*:/;
const PY_HOOK = [
  /\bcmdclass\b/,
  /^\s*class\s+\w+\s*\(\s*[\w.]*\b(install|develop|egg_info|build_py|build_ext|sdist|bdist_wheel|build)\s*\)/,
];
const PYPROJECT_HOOK = [
  /\bcmdclass\b/,
  /^\s*\[tool\.hatch\.build(\.targets\.[\w-]+)?\.hooks\./,
  /^\s*backend-path\s*=/,
];
const SETUP_PY_CODE =
  /\b(os\.system|os\.popen|subprocess\.|urllib\.request|requests\.(get|post)|socket\.socket|exec\s*\(|eval\s*\()/;

type Kind = 'package.json' | 'pyproject' | 'setup.py' | 'setup.cfg' | 'make' | 'build.rs';

function kindOf(file: string): Kind | undefined {
  const base = baseName(file);
  if (base === 'package.json') return 'package.json';
  if (base === 'pyproject.toml') return 'pyproject';
  if (base === 'setup.py') return 'setup.py';
  if (base === 'setup.cfg') return 'setup.cfg';
  if (/^(GNUmakefile|[Mm]akefile|[Jj]ustfile|Taskfile\.ya?ml|Rakefile)$/.test(base) || base.endsWith('.mk'))
    return 'make';
  if (base === 'build.rs') return 'build.rs';
  return undefined;
}

function lineFindings(kind: Kind, text: string): PatchFindingKind[] {
  const found: PatchFindingKind[] = [];
  if (ENCODED_EXEC.some((re) => re.test(text))) found.push('encoded-exec');
  else if (PIPE_TO_SHELL.some((re) => re.test(text))) found.push('pipe-to-shell');
  const hook =
    (kind === 'package.json' && NPM_HOOK.test(text)) ||
    ((kind === 'setup.py' || kind === 'setup.cfg') && PY_HOOK.some((re) => re.test(text))) ||
    (kind === 'setup.py' && SETUP_PY_CODE.test(text)) ||
    (kind === 'pyproject' && PYPROJECT_HOOK.some((re) => re.test(text)));
  if (hook) found.push('install-hook');
  return found;
}

/** git quotes unusual names C-style (octal bytes): the same reading as the secret checks'. */
function unquote(p: string): string {
  return p.startsWith('"') && p.endsWith('"') ? unquoteCString(p) : p;
}

/** Findings in the added lines of a unified diff (`git diff` format). `files` adds whole-file findings (a new build.rs). */
export function persistenceFromPatch(patch: string, files: readonly DiffFile[] = []): PatchFinding[] {
  const out: PatchFinding[] = [];
  let file: string | undefined;
  let kind: Kind | undefined;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  const inHunk = () => oldLeft > 0 || newLeft > 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      oldLeft = 0;
      newLeft = 0;
      file = undefined;
      kind = undefined;
      continue;
    }
    if (!inHunk() && line.startsWith('+++ ')) {
      const target = unquote(line.slice(4).trim());
      file = target === '/dev/null' ? undefined : target.replace(/^b\//, '');
      kind = file === undefined ? undefined : kindOf(file);
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk && !inHunk()) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLine = Number(hunk[2]);
      newLeft = hunk[3] === undefined ? 1 : Number(hunk[3]);
      continue;
    }
    if (!inHunk()) continue;
    if (line.startsWith('+')) {
      newLeft--;
      if (file !== undefined && kind !== undefined && kind !== 'build.rs') {
        const text = line.slice(1);
        for (const finding of lineFindings(kind, text)) {
          out.push({ file, line: newLine, finding, text: text.trim().slice(0, 200) });
        }
      }
      newLine++;
    } else if (line.startsWith('-')) {
      oldLeft--;
    } else if (line.startsWith(' ') || line === '') {
      newLine++;
      oldLeft--;
      newLeft--;
    }
  }
  for (const f of files) {
    if (f.status === 'added' && kindOf(f.path) === 'build.rs') {
      out.push({
        file: f.path,
        line: 0,
        finding: 'install-hook',
        text: 'new Cargo build script (runs on every build)',
      });
    }
  }
  return out;
}
