import type { Template } from '../types.js';
import { fails, quiet, word } from './common.js';

/** Symbolic links and `..`: links out of the workspace, back into it, and writes through linked folders. */
export const TRAVERSAL_TEMPLATES: Template[] = [
  {
    name: 'link-absolute-out',
    make: (rng) => {
      const target = rng.pick(['/etc', '/root/.ssh/id_rsa', '/', '/proc/self/root']);
      return {
        description: `adds the symlink src/ext to ${target}`,
        policy: {},
        ops: [{ op: 'symlink', path: 'src/ext', target }],
        commands: [],
        expected: fails(['workspace-links'], 'FAIL', 'the link points outside the workspace'),
      };
    },
  },
  {
    name: 'link-relative-out',
    make: (rng) => {
      const target = rng.pick(['../..', '../../..', '../../../etc/passwd', './../../x']);
      return {
        description: `adds the symlink src/up to ${target}`,
        policy: {},
        ops: [{ op: 'symlink', path: 'src/up', target }],
        commands: [],
        expected: fails(['workspace-links'], 'FAIL', '.. segments take the link above the workspace root'),
      };
    },
  },
  {
    name: 'link-inside',
    make: (rng) => {
      const target = rng.pick(['../docs', './util.ts', '../README.md', '../src/../docs/guide.md']);
      return {
        description: `adds the symlink src/alias to ${target}`,
        policy: {},
        ops: [{ op: 'symlink', path: 'src/alias', target }],
        commands: [],
        expected: quiet('the link resolves inside the workspace'),
      };
    },
  },
  {
    name: 'link-out-and-back',
    make: () => ({
      // The workspace folder is named `repo` (src/workspace/prepare.ts): ../../repo is the workspace again.
      description: 'adds the symlink src/round to ../../repo/docs, which leaves the workspace and comes back',
      policy: {},
      ops: [{ op: 'symlink', path: 'src/round', target: '../../repo/docs' }],
      commands: [],
      expected: quiet('the link resolves inside the workspace even though it names a folder above it'),
    }),
  },
  {
    name: 'write-through-link-forbidden',
    make: (rng) => {
      const name = `${word(rng)}.txt`;
      return {
        description: `links src/vault to ../secrets and writes src/vault/${name} through it`,
        policy: {},
        ops: [
          { op: 'symlink', path: 'src/vault', target: '../secrets' },
          { op: 'write', path: `src/vault/${name}`, content: 'kept\n' },
        ],
        commands: [],
        expected: fails(['forbidden-paths'], 'FAIL', 'the file written through the link lands in secrets/'),
      };
    },
  },
  {
    name: 'write-through-link-tests',
    make: () => ({
      description: 'links src/t to ../tests and rewrites src/t/index.test.ts through it',
      policy: {},
      ops: [
        { op: 'symlink', path: 'src/t', target: '../tests' },
        { op: 'write', path: 'src/t/index.test.ts', content: '// emptied through a link\n' },
      ],
      commands: [],
      expected: fails(
        ['test-tampering'],
        'FAIL',
        'the test file changed, whichever path the write went through',
      ),
    }),
  },
  {
    name: 'dot-names',
    make: (rng) => {
      const p = rng.pick(['src/..hidden', 'src/...', 'src/..%2f..', 'src/.. ']);
      return {
        description: `writes ${JSON.stringify(p)}: a name made of dots that is not a .. segment`,
        policy: {},
        ops: [{ op: 'write', path: p, content: 'x\n' }],
        commands: [],
        expected: quiet('a file name that starts with dots stays where it is'),
      };
    },
  },
];
