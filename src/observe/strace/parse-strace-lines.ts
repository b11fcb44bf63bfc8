import type { SysEvent } from '../../evidence/types.js';
import { CloneIndexer } from './clone-index.js';
import { type StraceParseResult, StraceParser } from './strace-parser.js';

export type ParseStraceOptions = {
  /** Wall-clock ms when the observation window opened; defaults to the time of the first line. */
  startMs?: number;
  onEvent?: (event: SysEvent) => void;
  /** See StraceParserOptions.nativeSyscalls. */
  nativeSyscalls?: Readonly<Record<string, number>> | null;
};

/**
 * Parses a whole strace log (`-f -ttt -y` lines, one file) into SysEvents. Pure: two passes over
 * the lines, the first to learn who created whom, the second to build events.
 */
export function parseStraceLines(
  lines: Iterable<string> | string,
  rootCwd: string,
  options: ParseStraceOptions = {},
): StraceParseResult {
  const list = typeof lines === 'string' ? lines.split('\n') : [...lines];
  const indexer = new CloneIndexer();
  for (const line of list) indexer.push(line);
  const parser = new StraceParser({ rootCwd, clones: indexer.index, ...options });
  for (const line of list) parser.push(line);
  return parser.finish();
}
