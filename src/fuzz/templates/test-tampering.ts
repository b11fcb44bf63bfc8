import type { Template } from '../types.js';
import { fails, quiet, word, write } from './common.js';

const TAMPERED = 'a file under test_paths (tests/**, **/*.test.ts) changed';

/** test_paths `tests/**` and `**\/*.test.ts` at and around their edges. */
export const TEST_TAMPERING_TEMPLATES: Template[] = [
  {
    name: 'edit-test',
    make: () => ({
      description: 'rewrites tests/index.test.ts so it cannot fail',
      policy: {},
      ops: [write('tests/index.test.ts', '// the check was removed\n')],
      commands: [],
      expected: fails(['test-tampering'], 'FAIL', TAMPERED),
    }),
  },
  {
    name: 'delete-test',
    make: () => ({
      description: 'deletes tests/index.test.ts',
      policy: {},
      ops: [{ op: 'delete', path: 'tests/index.test.ts' }],
      commands: [],
      expected: fails(['test-tampering'], 'FAIL', TAMPERED),
    }),
  },
  {
    name: 'rename-test-away',
    make: (rng) => {
      const to = `src/${word(rng)}.check.ts`;
      return {
        description: `renames tests/index.test.ts to ${to}`,
        policy: {},
        ops: [{ op: 'rename', from: 'tests/index.test.ts', to }],
        commands: [],
        expected: fails(['test-tampering'], 'FAIL', `${TAMPERED}: the old side of the rename`),
      };
    },
  },
  {
    name: 'add-test',
    make: (rng) => {
      const p = rng.pick([
        `tests/${word(rng)}.ts`,
        `src/${word(rng)}.test.ts`,
        `lib/deep/${word(rng)}.test.ts`,
      ]);
      return {
        description: `adds ${p}`,
        policy: {},
        ops: [write(p, 'export {};\n')],
        commands: [],
        expected: fails(['test-tampering'], 'FAIL', TAMPERED),
      };
    },
  },
  {
    name: 'near-miss',
    make: (rng) => {
      const p = rng.pick([
        'Tests/helper.ts',
        'tests2/x.ts',
        'src/contest.ts',
        'src/x.test.tsx',
        'src/x.TEST.ts',
        'src/testing.ts',
        'src/x.test.ts.bak',
      ]);
      return {
        description: `adds ${p}, a name one step from the test paths`,
        policy: {},
        ops: [write(p, 'export {};\n')],
        commands: [],
        expected: quiet('no test_paths pattern covers this name'),
      };
    },
  },
];
