import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { plural } from '../analysis/evidence-list.js';
import { compileGlobs } from '../analysis/path-glob.js';
import { recordWithoutOutput } from '../evidence/command-record.js';
import type { CommandRecord, DiffEvidence } from '../evidence/types.js';
import { errorCode } from '../workspace/walk-tree.js';
import { parseAgentLog } from './agent-log.js';

/** A log larger than this is not read (said so): the PR decides its size, not our memory. */
export const MAX_LOG_BYTES = 16 * 1024 * 1024;

export type AgentLogs = {
  /** One `agent-log` command record per logged command, for commands.jsonl. */
  records: CommandRecord[];
  /** One line per log: what was read from it, or why it was not. */
  notes: string[];
};

/**
 * The agent command logs of a CI run: files of the judged changes matching the config's
 * `agent_logs` globs (read from the judged copy, never through a symlink: the PR chose them), and
 * files named by `--agent-log`. Added or modified files only: a log the PR did not touch is not its.
 */
export function readAgentLogs(opts: {
  repoDir: string;
  diff: DiffEvidence;
  globs: readonly string[];
  files: readonly string[];
}): AgentLogs {
  const sources: { label: string; file: string; followLinks: boolean }[] = [];
  if (opts.globs.length > 0) {
    const matches = compileGlobs(opts.globs);
    for (const f of opts.diff.files) {
      if (f.status === 'deleted' || matches(f.path) === null) continue;
      sources.push({ label: f.path, file: path.join(opts.repoDir, f.path), followLinks: false });
    }
  }
  for (const file of opts.files) sources.push({ label: file, file, followLinks: true });

  const logs: AgentLogs = { records: [], notes: [] };
  for (const source of sources) {
    const read = readBounded(source.file, source.followLinks);
    if (!read.ok) {
      logs.notes.push(`${source.label}: not read (${read.reason})`);
      continue;
    }
    const parsed = parseAgentLog(read.text);
    for (const c of parsed.commands) {
      logs.records.push(
        record(`agent-log-${logs.records.length + 1}`, c.argv, c.cwd ?? '', `${source.label}:${c.line}`),
      );
    }
    const extra = [
      parsed.unreadable_lines > 0 ? `${plural(parsed.unreadable_lines, 'line')} not understood` : '',
      parsed.truncated ? `only the first ${parsed.commands.length} read` : '',
    ].filter(Boolean);
    logs.notes.push(
      `${source.label}: ${plural(parsed.commands.length, 'command')}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`,
    );
  }
  return logs;
}

function readBounded(
  file: string,
  followLinks: boolean,
): { ok: true; text: string } | { ok: false; reason: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (followLinks ? 0 : constants.O_NOFOLLOW) | constants.O_NONBLOCK);
  } catch (err) {
    const code = errorCode(err);
    return { ok: false, reason: code === 'ELOOP' ? 'a symlink, not followed' : code };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
    if (st.size > MAX_LOG_BYTES) return { ok: false, reason: `larger than ${MAX_LOG_BYTES} bytes` };
    const buf = Buffer.alloc(st.size);
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return { ok: true, text: buf.subarray(0, at).toString('utf8') };
  } catch (err) {
    return { ok: false, reason: errorCode(err) };
  } finally {
    closeSync(fd);
  }
}

function record(id: string, argv: string[], cwd: string, source: string): CommandRecord {
  return recordWithoutOutput({ id, role: 'agent-log', log_source: source, argv, cwd, exit_code: null });
}
