import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Row } from '../reports/batch-types.js';

/*
 * The checkpoint is one JSON row a line, appended and fsynced before the attempt is counted, so a
 * `kill -9` at any moment loses at most the attempts still running, never a finished one. A torn
 * last line (killed mid-write) is dropped on read, and its attempt runs again on resume.
 */

export function appendCheckpoint(file: string, row: Row): void {
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, `${JSON.stringify(row)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * An attempt that never became a run (config, workspace or sandbox setup failed): it says nothing
 * about the agent, and a fixed machine may well run it, so resume tries it again.
 */
export function isSetupError(row: Row): boolean {
  return row.result === 'ERROR' && row.run_id === null;
}

/**
 * The finished rows, one per attempt index. The first written wins, except that a later row
 * replaces a setup ERROR: that is resume's retry of it.
 */
export function readCheckpoint(file: string): Row[] {
  if (!existsSync(file)) return [];
  const rows = new Map<number, Row>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let row: Row;
    try {
      row = JSON.parse(line) as Row;
    } catch {
      continue;
    }
    if (typeof row?.index !== 'number') continue;
    const earlier = rows.get(row.index);
    if (earlier === undefined || isSetupError(earlier)) rows.set(row.index, row);
  }
  return [...rows.values()].sort((a, b) => a.index - b.index);
}
