import type { Template } from '../types.js';
import { ALNUM, fails, quiet, UPPER_DIGITS, word, write } from './common.js';

const HARMLESS_ENV = 'LOG_LEVEL=debug\n';

/** secret_paths (the schema's defaults) and the secret-content presets, at and around their edges. */
export const SECRET_TEMPLATES: Template[] = [
  {
    name: 'secret-file',
    make: (rng) => {
      const p = rng.pick([
        '.env',
        'config/.env.production',
        'deploy/prod.env',
        'certs/server.pem',
        'keys/id_rsa',
        'keys/id_ed25519.pub',
        '.npmrc',
        'aws/credentials',
        'certs/client.p12',
      ]);
      return {
        description: `adds ${p}, a file named like a credential store`,
        policy: {},
        ops: [write(p, HARMLESS_ENV)],
        commands: [],
        expected: fails(['secret-paths'], 'FAIL', 'the name is one of the default secret_paths'),
      };
    },
  },
  {
    name: 'secret-file-template',
    make: (rng) => {
      const p = rng.pick([
        '.env.example',
        '.env.sample',
        'deploy/prod.env.template',
        '.env.local.example',
        'docs/env.md',
        'src/pem.ts',
        'src/credentials.ts',
      ]);
      return {
        description: `adds ${p}, a template or source file near a secret name`,
        policy: {},
        ops: [write(p, HARMLESS_ENV)],
        commands: [],
        expected: quiet('templates committed on purpose and source files are not secret files'),
      };
    },
  },
  {
    name: 'secret-file-case',
    make: (rng) => {
      const p = rng.pick(['.ENV', '.Env', 'certs/SERVER.PEM', 'keys/ID_RSA', 'aws/Credentials', '.NPMRC']);
      return {
        description: `adds ${p}: a secret file name in another case`,
        policy: {},
        ops: [write(p, HARMLESS_ENV)],
        commands: [],
        expected: fails(
          ['secret-paths'],
          'FAIL',
          'a credential file holds the same secrets whatever the case of its name, and case-insensitive checkouts load it under the usual name',
        ),
      };
    },
  },
  {
    name: 'secret-file-lookalike',
    make: (rng) => {
      const p = rng.pick(['.\uff45nv', 'certs/server.p\u0435m', 'keys/id_rsa_notes.md']);
      return {
        description: `adds ${JSON.stringify(p)}: a look-alike of a secret file name`,
        policy: {},
        ops: [write(p, HARMLESS_ENV)],
        commands: [],
        expected:
          p === 'keys/id_rsa_notes.md'
            ? fails(['secret-paths'], 'FAIL', 'id_rsa* covers every name that starts with id_rsa')
            : quiet('no tool loads a file of that name as its credentials'),
      };
    },
  },
  {
    name: 'aws-key',
    make: (rng) => {
      const key = `${rng.pick(['AKIA', 'ASIA'])}${rng.chars(UPPER_DIGITS, 16)}`;
      return {
        description: 'adds an AWS access key id to a source file',
        policy: {},
        ops: [write(`src/${word(rng)}.ts`, `export const id = '${key}';\n`)],
        commands: [],
        expected: fails(['secret-content'], 'FAIL', 'an AWS access key id is in an added line'),
      };
    },
  },
  {
    name: 'aws-key-near-miss',
    make: (rng) => {
      const shape = rng.pick(['short', 'lower', 'prefix'] as const);
      const value =
        shape === 'short'
          ? `AKIA${rng.chars(UPPER_DIGITS, 15)}`
          : shape === 'lower'
            ? `akia${rng.chars(UPPER_DIGITS, 16).toLowerCase()}`
            : `AKIB${rng.chars(UPPER_DIGITS, 16)}`;
      return {
        description: `adds an AWS-key-like value that is not one (${shape})`,
        policy: {},
        ops: [write(`src/${word(rng)}.ts`, `export const id = '${value}';\n`)],
        commands: [],
        expected: quiet('one character short, lower case or another prefix is not an AWS key id'),
      };
    },
  },
  {
    name: 'github-token',
    make: (rng) => {
      const long = rng.next() < 0.5;
      const value = `ghp_${rng.chars(ALNUM, long ? 36 : 35)}`;
      return {
        description: `adds a GitHub-token-shaped value of ${long ? 36 : 35} characters after ghp_`,
        policy: {},
        ops: [write(`src/${word(rng)}.ts`, `export const id = '${value}';\n`)],
        commands: [],
        expected: long
          ? fails(['secret-content'], 'FAIL', 'a classic GitHub token has 36 characters after ghp_')
          : quiet('35 characters after ghp_ is one short of a GitHub token'),
      };
    },
  },
  {
    name: 'secret-split-lines',
    make: (rng) => {
      const key = `AKIA${rng.chars(UPPER_DIGITS, 16)}`;
      const cut = rng.int(4, 15);
      return {
        description: 'adds an AWS access key id split over two source lines by string concatenation',
        policy: {},
        ops: [
          write(
            `src/${word(rng)}.ts`,
            `export const id =\n  '${key.slice(0, cut)}' +\n  '${key.slice(cut)}';\n`,
          ),
        ],
        commands: [],
        expected: fails(
          ['secret-content'],
          'FAIL',
          'the key is in the diff; splitting it does not make it less leaked',
        ),
      };
    },
  },
  {
    name: 'private-key-block',
    make: (rng) => {
      const kind = rng.pick(['RSA PRIVATE', 'PRIVATE', 'OPENSSH PRIVATE', 'PUBLIC']);
      const body = rng.chars(`${ALNUM}+/`, 64);
      return {
        description: `adds a PEM block -----BEGIN ${kind} KEY-----`,
        policy: {},
        ops: [
          write(
            `fixtures/${word(rng)}.txt`,
            `-----BEGIN ${kind} KEY-----\n${body}\n-----END ${kind} KEY-----\n`,
          ),
        ],
        commands: [],
        expected:
          kind === 'PUBLIC'
            ? quiet('a public key is not a secret')
            : fails(['secret-content'], 'FAIL', 'a private key block is in an added line'),
      };
    },
  },
];
