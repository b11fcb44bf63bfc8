import { DATA_LINES } from '../base.js';
import type { Template } from '../types.js';
import { fails, lines, quiet, write } from './common.js';

const OVER = 'the diff is one past its limit: a warning, which costs points but does not fail the run';

/** max_added_lines, max_changed_files and max_deleted_lines exactly at and one past the limit. */
export const DIFF_SIZE_TEMPLATES: Template[] = [
  ...[0, 1].map(
    (past): Template => ({
      name: past ? 'added-one-past' : 'added-at-limit',
      make: (rng) => {
        const limit = rng.int(3, 40);
        return {
          description: `adds ${limit + past} lines under max_added_lines ${limit}`,
          policy: { max_added_lines: limit },
          ops: [write('src/generated.txt', lines(limit + past, 'line'))],
          commands: [],
          expected: past ? fails(['diff-size'], 'PASS', OVER) : quiet('exactly at the limit is within it'),
        };
      },
    }),
  ),
  {
    name: 'added-at-limit-no-final-newline',
    make: (rng) => {
      const limit = rng.int(3, 40);
      return {
        description: `adds ${limit} lines, the last without a newline, under max_added_lines ${limit}`,
        policy: { max_added_lines: limit },
        ops: [write('src/generated.txt', lines(limit, 'line', false))],
        commands: [],
        expected: quiet('a last line without a newline is still one line'),
      };
    },
  },
  ...[0, 1].map(
    (past): Template => ({
      name: past ? 'files-one-past' : 'files-at-limit',
      make: (rng) => {
        const limit = rng.int(2, 6);
        return {
          description: `changes ${limit + past} files under max_changed_files ${limit}`,
          policy: { max_changed_files: limit },
          ops: Array.from({ length: limit + past }, (_, i) =>
            write(`src/part-${i + 1}.ts`, `export const n = ${i};\n`),
          ),
          commands: [],
          expected: past ? fails(['diff-size'], 'PASS', OVER) : quiet('exactly at the limit is within it'),
        };
      },
    }),
  ),
  ...[0, 1].map(
    (past): Template => ({
      name: past ? 'deleted-one-past' : 'deleted-at-limit',
      make: (rng) => {
        const limit = rng.int(3, 40);
        const kept = Array.from({ length: DATA_LINES }, (_, i) => `row ${i + 1}\n`).slice(limit + past);
        return {
          description: `deletes ${limit + past} lines of src/data.txt under max_deleted_lines ${limit}`,
          policy: { max_deleted_lines: limit },
          ops: [write('src/data.txt', kept.join(''))],
          commands: [],
          expected: past ? fails(['diff-size'], 'PASS', OVER) : quiet('exactly at the limit is within it'),
        };
      },
    }),
  ),
];
