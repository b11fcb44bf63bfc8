import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { TaskAction, WorkspaceAction } from './actions.js';

/** A workspace action that could not be carried out: the catalog entry is wrong, not the checks. */
export class ActionError extends Error {}

/**
 * Carry out workspace actions, in order, on a prepared copy of a fixture's repository. `solution`
 * is the copied fixture's reference solution folder. Only ever given a run's own workspace.
 */
export function applyWorkspaceActions(
  repoDir: string,
  actions: readonly WorkspaceAction[],
  solution: string | undefined,
): void {
  for (const [i, action] of actions.entries()) {
    try {
      applyOne(repoDir, action, solution);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new ActionError(`action ${i + 1} (${action.kind}) failed: ${reason}`);
    }
  }
}

function applyOne(repoDir: string, action: WorkspaceAction, solution: string | undefined): void {
  const at = (rel: string) => path.join(repoDir, rel);
  switch (action.kind) {
    case 'apply-solution':
      if (!solution) throw new Error('the fixture has no reference solution');
      cpSync(solution, repoDir, { recursive: true });
      return;
    case 'write-file':
      mkdirSync(path.dirname(at(action.path)), { recursive: true });
      writeFileSync(at(action.path), action.text);
      if (action.executable) chmodSync(at(action.path), 0o755);
      return;
    case 'append-file':
      mustExist(at(action.path), action.path);
      appendFileSync(at(action.path), action.text);
      return;
    case 'replace-text': {
      const text = readExisting(at(action.path), action.path);
      if (!text.includes(action.find)) throw new Error(`${action.path} does not contain the text to replace`);
      writeFileSync(
        at(action.path),
        text.replace(action.find, () => action.replace),
      );
      return;
    }
    case 'delete-file':
      mustExist(at(action.path), action.path);
      rmSync(at(action.path), { recursive: true });
      return;
    case 'rename':
      mustExist(at(action.from), action.from);
      mkdirSync(path.dirname(at(action.to)), { recursive: true });
      renameSync(at(action.from), at(action.to));
      return;
    case 'symlink':
      mkdirSync(path.dirname(at(action.path)), { recursive: true });
      symlinkSync(action.target, at(action.path));
      return;
    case 'grow-file': {
      mkdirSync(path.dirname(at(action.path)), { recursive: true });
      const lines = Array.from({ length: action.lines }, (_, i) => `filler line ${i + 1}`);
      writeFileSync(at(action.path), `${lines.join('\n')}\n`);
      return;
    }
    case 'nested-repo': {
      const git = path.join(at(action.path), '.git');
      for (const dir of ['objects', 'refs/heads']) mkdirSync(path.join(git, dir), { recursive: true });
      writeFileSync(path.join(git, 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(path.join(at(action.path), 'README.md'), 'vendored copy\n');
      return;
    }
    case 'test-time-script': {
      const file = at(action.path);
      const text = readExisting(file, action.path);
      writeFileSync(file, withTestTimeScript(action.path, text, action.script));
      return;
    }
  }
}

/**
 * The module's text with a line that runs `script` under `sh -c` when the module is loaded,
 * ignoring its output and failure so that the tests themselves still pass.
 */
export function withTestTimeScript(file: string, text: string, script: string): string {
  const ext = path.extname(file);
  if (ext === '.js' || ext === '.mjs' || ext === '.cjs') {
    return `${text}\ntry { process.getBuiltinModule('node:child_process').execFileSync('sh', ['-c', ${JSON.stringify(script)}], { stdio: 'ignore' }); } catch {}\n`;
  }
  if (ext === '.py') {
    return `${text}\ntry:\n    import subprocess as _mutation_sp\n    _mutation_sp.run(['sh', '-c', ${JSON.stringify(script)}], stdout=_mutation_sp.DEVNULL, stderr=_mutation_sp.DEVNULL)\nexcept Exception:\n    pass\n`;
  }
  if (ext === '.sh') {
    // After the shebang, before anything that could exit: the script runs whatever the arguments.
    const line = `( sh -c ${shellQuote(script)} ) >/dev/null 2>&1 || true\n`;
    if (!text.startsWith('#!')) return line + text;
    const nl = text.indexOf('\n');
    return nl < 0 ? `${text}\n${line}` : text.slice(0, nl + 1) + line + text.slice(nl + 1);
  }
  throw new Error(`${file}: test-time scripts go into .js, .mjs, .cjs, .py or .sh modules`);
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function mustExist(abs: string, rel: string): void {
  if (!existsSync(abs)) throw new Error(`${rel} does not exist in the workspace`);
}

function readExisting(abs: string, rel: string): string {
  mustExist(abs, rel);
  return readFileSync(abs, 'utf8');
}

/** The copied config's fields the task actions set, over what the fixture's config says. */
export function taskOverlay(actions: readonly TaskAction[]): Record<string, unknown> {
  const overlay: Record<string, unknown> = {};
  for (const action of actions) {
    if (action.kind === 'agent-command') overlay.agent_command = action.argv;
    else overlay.grader_paths = action.paths;
  }
  return overlay;
}
