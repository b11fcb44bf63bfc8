import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonSchema, SCHEMA_KINDS } from '../../src/schemas/json-schemas.js';
import { ROOT, tempDir } from './exec-cli.js';
import { canMakeUsers, dropTo, makeTestUser, removeTestUser, type TestUser, userEnv } from './test-user.js';

/*
 * The package as a user gets it: `npm pack`, then `npm install -g` of the tarball into an empty
 * prefix by a normal user (made here when this runs as root, as the documented path for a
 * developer), run from there by root and by that user (a rootless run: bwrap in user namespaces,
 * strace). npm installs from the registry as on any machine, into the user's own cache;
 * better-sqlite3 compiles where no prebuilt binary can be downloaded, with the Node headers this
 * machine's npm configuration names (`nodedir`), as the user's own configuration would.
 */

const work = tempDir('ag-pack-');
let user: TestUser | undefined;
afterAll(() => {
  removeTestUser(user);
  rmSync(work, { recursive: true, force: true });
});

/** What the package may hold: the built CLI, the data it reads, the collector's sources. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^dist\/.*\.js$/,
  /^dist\/json-schemas\/[a-z]+\.schema\.json$/,
  // The shipped rule files parsed at build time (parsed-rules.ts), so a run does not parse their YAML.
  /^dist\/analysis\/rules\/shipped-rules\.json$/,
  /^rules\//,
  /^agents\/[a-z0-9-]+\.yaml$/,
  /^benchmarks\//,
  /^collector\/([a-z_.-]+\.[ch]|Makefile|gen-syscalls\.mjs|README\.md)$/,
  /^microvm\/(build-image|init)\.sh$/,
];

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/**
 * What the user's npm gets from this environment: the network's (proxy, CA bundle) and this
 * machine's Node headers, but not npm's own settings for root (`npm_config_cache` and the others
 * `npm run` sets), which would send it to root's cache.
 */
function npmEnvFor(user: TestUser, nodedir: string): Record<string, string> {
  const inherited = Object.entries(process.env).filter(
    (e): e is [string, string] => e[1] !== undefined && !/^(npm_|INIT_CWD$|HOME$|USER$|LOGNAME$)/.test(e[0]),
  );
  return userEnv(user, {
    ...Object.fromEntries(inherited),
    ...(nodedir && nodedir !== 'undefined' ? { npm_config_nodedir: nodedir } : {}),
  });
}

describe('the npm package', () => {
  let tarball = '';
  let files: string[] = [];

  it('npm pack carries exactly what a run needs', () => {
    const r = sh('npm', ['pack', '--json', '--pack-destination', work], ROOT);
    expect(r.code, r.stderr).toBe(0);
    const [info] = JSON.parse(r.stdout) as { filename: string; files: { path: string }[] }[];
    if (!info) throw new Error('npm pack printed no package');
    tarball = path.join(work, info.filename);
    files = info.files.map((f) => f.path);
    expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
    for (const needed of [
      'dist/cli/main.js',
      'dist/json-schemas/config.schema.json',
      'rules/secrets.yaml',
      'agents/codex.yaml',
      'benchmarks/js-slugify/config.yaml',
      'benchmarks/js-slugify/repo/src/slugify.js',
      'collector/Makefile',
      'collector/collector.c',
      'collector/agentguard.bpf.c',
    ])
      expect(files).toContain(needed);
    expect(files.some((f) => f.startsWith('collector/build/'))).toBe(false);
    expect(
      files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('dist/bench/')),
    ).toBe(false);
  });

  let pkg = '';
  let bin = '';

  it('a user installs it with npm install -g into an empty prefix', () => {
    expect(tarball).not.toBe('');
    const install = (prefix: string) => [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      tarball,
    ];
    let prefix = path.join(work, 'prefix');
    if (canMakeUsers) {
      user = makeTestUser(`agpk${process.pid % 100000}`, path.join(work, 'user'));
      prefix = path.join(user.home, 'prefix');
      const env = npmEnvFor(user, sh('npm', ['config', 'get', 'nodedir'], work).stdout.trim());
      const r = sh('setpriv', [...dropTo(user), 'npm', ...install(prefix)], user.home, env);
      expect(r.code, r.stderr).toBe(0);
    } else {
      console.log('installed as this user: making a normal user needs root');
      const r = sh('npm', install(prefix), work);
      expect(r.code, r.stderr).toBe(0);
    }
    pkg = path.join(prefix, 'lib', 'node_modules', 'agentguard');
    bin = path.join(prefix, 'bin', 'agentguard');
    expect(existsSync(bin)).toBe(true);
  }, 900_000);

  it('runs doctor, schema, init and a shipped benchmark from the installed package', () => {
    expect(bin).not.toBe('');
    expect(readFileSync(path.join(pkg, 'dist/cli/main.js'), 'utf8').split('\n')[0]).toBe(
      '#!/usr/bin/env node',
    );
    const manifest = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8'));
    expect(manifest.engines.node).toMatch(/^>=20\./);

    // The shipped schemas are the ones the zod schemas give today.
    for (const kind of SCHEMA_KINDS) {
      const shipped = JSON.parse(
        readFileSync(path.join(pkg, 'dist/json-schemas', `${kind}.schema.json`), 'utf8'),
      );
      expect(shipped).toEqual(jsonSchema(kind));
    }

    // The collector builds from the shipped sources alone, where its toolchain is installed.
    if (sh('sh', ['-c', 'command -v clang && command -v bpftool'], work).code === 0) {
      const make = sh('make', ['-C', path.join(pkg, 'collector')], work);
      expect(make.code, make.stderr).toBe(0);
      expect(existsSync(path.join(pkg, 'collector/build/agentguard-collector'))).toBe(true);
    } else console.log('collector build skipped: clang or bpftool is not installed');

    const home = tempDir('ag-pack-home-');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, NO_COLOR: '1' };
    const doctor = sh(bin, ['doctor', '--json'], home, env);
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(doctor.stdout))).toContain('bwrap');

    const schema = sh(bin, ['schema', 'matrix'], home, env);
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout).title).toMatch(/matrix/);

    const run = sh(
      bin,
      ['run', path.join(pkg, 'benchmarks/js-slugify/config.yaml'), '--agent', 'mock-solve', '--json'],
      home,
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.result).toBe('PASS');
    expect(report.run_dir.startsWith(path.join(home, '.agentguard'))).toBe(true);
    // An installed package is no checkout of agentguard: its manifest says only the version.
    const sealed = JSON.parse(readFileSync(path.join(report.run_dir, 'manifest.json'), 'utf8'));
    expect(sealed.git.agentguard).toEqual({ source: 'package', version: manifest.version });

    // init from the installed package points editors at that package's schema file.
    const repo = tempDir('ag-pack-repo-');
    sh('sh', ['-c', 'printf "module x\\n" > go.mod'], repo);
    const init = sh(bin, ['init', '--no-check'], repo, env);
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'agentguard.yaml'), 'utf8').split('\n')[0]).toBe(
      `# yaml-language-server: $schema=${path.join(pkg, 'dist/json-schemas/config.schema.json')}`,
    );
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }, 600_000);

  it.skipIf(!canMakeUsers)(
    'the user who installed it runs a rootless run from its own install',
    () => {
      if (!user) throw new Error('no test user: the install step failed');
      const env = userEnv(user);
      const doctor = sh('setpriv', [...dropTo(user), bin, 'doctor', '--json'], user.home, env);
      const rows = JSON.parse(doctor.stdout) as {
        component: string;
        name: string;
        works: boolean;
        fix: string;
      }[];
      const row = (component: string, name: string) =>
        rows.find((r) => r.component === component && r.name === name);
      expect(row('tracer', 'strace')?.works, doctor.stdout).toBe(true);
      const ebpf = row('tracer', 'ebpf');
      expect(ebpf?.works).toBe(false);
      expect(ebpf?.fix).toMatch(/sudo/);

      const config = path.join(pkg, 'benchmarks/js-slugify/config.yaml');
      const run = sh(
        'setpriv',
        [...dropTo(user), bin, 'run', config, '--agent', 'mock-solve', '--json'],
        user.home,
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.result).toBe('PASS');
      expect(report.run_dir.startsWith(path.join(user.home, '.agentguard'))).toBe(true);
      const observation = JSON.parse(
        readFileSync(path.join(report.run_dir, 'evidence/observation.json'), 'utf8'),
      );
      expect(observation.sandbox.facts.weaker_than_root).toMatch(/invoking user/);
      expect(observation.tracer.kind).toBe('strace');
    },
    600_000,
  );
});
