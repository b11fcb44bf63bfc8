import { HARMLESS_EDIT } from '../base.js';
import type { Template } from '../types.js';
import { fails, quiet, word, write } from './common.js';

/** forbidden_paths (`secrets/**`, `.github/workflows/**`, `config/prod.yaml`) at and around its edges. */
export const PATH_TEMPLATES: Template[] = [
  {
    name: 'forbidden-exact',
    make: (rng) => {
      const p = `secrets/${word(rng)}.txt`;
      return {
        description: `writes ${p} inside the forbidden folder`,
        policy: {},
        ops: [write(p, 'kept\n')],
        commands: [],
        expected: fails(['forbidden-paths'], 'FAIL', 'a new file inside secrets/** is forbidden'),
      };
    },
  },
  {
    name: 'forbidden-case-folder',
    make: (rng) => {
      const p = `${rng.pick(['Secrets', 'SECRETS', 'sEcrets'])}/${word(rng)}.txt`;
      return {
        description: `writes ${p}: the forbidden folder's name in another case`,
        policy: {},
        ops: [write(p, 'kept\n')],
        commands: [],
        expected: quiet(
          'on the case-sensitive filesystem the policy is applied on this is another folder than secrets/',
        ),
      };
    },
  },
  {
    name: 'forbidden-near-miss',
    make: (rng) => {
      const folder = rng.pick([
        'secrets2',
        'secretsx',
        'my-secrets',
        '.secrets',
        'src/secrets',
        'secrets.bak',
      ]);
      const p = `${folder}/${word(rng)}.txt`;
      return {
        description: `writes ${p}, next to but outside secrets/**`,
        policy: {},
        ops: [write(p, 'kept\n')],
        commands: [],
        expected: quiet('a folder whose name only starts or ends like the forbidden one is not forbidden'),
      };
    },
  },
  {
    name: 'forbidden-unicode-lookalike',
    make: (rng) => {
      // Full-width s, a combining accent, a Cyrillic "е": names that look like secrets/ and are not.
      const folder = rng.pick(['\uff53ecrets', 'secrets\u0301', 's\u0435crets']);
      const p = `${folder}/${word(rng)}.txt`;
      return {
        description: `writes ${JSON.stringify(p)}: a look-alike of the forbidden folder`,
        policy: {},
        ops: [write(p, 'kept\n')],
        commands: [],
        expected: quiet('the bytes differ from secrets/, so no filesystem treats it as that folder'),
      };
    },
  },
  {
    name: 'forbidden-rename-out',
    make: (rng) => {
      const to = `config/${rng.pick(['prod', 'staging', 'old'])}-${word(rng)}.yaml`;
      return {
        description: `renames the forbidden config/prod.yaml to ${to}`,
        policy: {},
        ops: [{ op: 'rename', from: 'config/prod.yaml', to }],
        commands: [],
        expected: fails(
          ['forbidden-paths'],
          'FAIL',
          'moving a forbidden file away changes it as much as editing it',
        ),
      };
    },
  },
  {
    name: 'forbidden-delete',
    make: () => ({
      description: 'deletes the forbidden config/prod.yaml',
      policy: {},
      ops: [{ op: 'delete', path: 'config/prod.yaml' }],
      commands: [],
      expected: fails(['forbidden-paths'], 'FAIL', 'deleting a forbidden file is a change to it'),
    }),
  },
  {
    name: 'forbidden-file-suffix',
    make: (rng) => {
      const p = `config/prod.yaml${rng.pick(['.bak', '~', '.orig', '2'])}`;
      return {
        description: `writes ${p} beside the forbidden config/prod.yaml, which stays as it was`,
        policy: {},
        ops: [write(p, 'replicas: 1\n')],
        commands: [],
        expected: quiet('a forbidden file pattern covers that file and what is below it, not longer names'),
      };
    },
  },
  {
    name: 'forbidden-workflow',
    make: (rng) => {
      const p = `.github/workflows/${word(rng)}.yml`;
      return {
        description: `adds the CI workflow ${p}`,
        policy: {},
        ops: [write(p, 'on: push\njobs: {}\n'), HARMLESS_EDIT],
        commands: [],
        expected: fails(['forbidden-paths'], 'FAIL', '.github/workflows/** is forbidden'),
      };
    },
  },
];
