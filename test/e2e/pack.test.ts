import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonSchema, SCHEMA_KINDS } from '../../src/schemas/json-schemas.js';
import { ROOT, tempDir } from './exec-cli.js';

/*
 * The package as a user gets it: `npm pack`, installed from the tarball into an empty prefix, run
 * from there. npm installs from the registry as on any machine; the user's npm cache and node-gyp
 * headers are used (better-sqlite3 compiles where no prebuilt binary can be downloaded).
 */

const work = tempDir('ag-pack-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

  it('installs into an empty prefix and runs doctor, schema, init and a shipped benchmark from there', () => {
    expect(tarball).not.toBe('');
    const prefix = path.join(work, 'prefix');
    const install = sh('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', tarball], work);
    expect(install.code, install.stderr).toBe(0);
    const pkg = path.join(prefix, 'node_modules', 'agentguard');
    const bin = path.join(prefix, 'node_modules', '.bin', 'agentguard');
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
});
