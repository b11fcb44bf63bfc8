import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync as readBytes,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBwrapStrace, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const venvWorks = spawnSync('/usr/bin/python3', ['-c', 'import venv, ensurepip']).status === 0;
const ok = isRoot && has('bwrap') && has('strace') && has('npm') && venvWorks;
if (!ok)
  console.warn(
    'setup-dependencies e2e skipped: it needs root, bwrap, strace, npm and python3-venv (CI has them)',
  );

const work = tempDir('ag-setup-deps-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A tiny npm package packed and added to an npm cache folder: returns its tarball's integrity. */
function npmCache(cache: string): string {
  const pkg = path.join(work, 'tinydep');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(path.join(pkg, 'package.json'), '{"name":"tinydep","version":"1.0.0","main":"index.js"}\n');
  writeFileSync(path.join(pkg, 'index.js'), 'module.exports = (a, b) => a + b;\n');
  execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: pkg });
  const tgz = path.join(work, 'tinydep-1.0.0.tgz');
  execFileSync('npm', ['cache', 'add', tgz, '--cache', cache], { stdio: 'ignore' });
  return `sha512-${createHash('sha512').update(readBytes(tgz)).digest('base64')}`;
}

/** A wheel built by hand (a zip with the package, METADATA, WHEEL and RECORD): no setuptools needed. */
function wheel(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'tinywheel-1.0-py3-none-any.whl');
  const script = `
import base64, hashlib, sys, zipfile
files = {
  'tinywheel/__init__.py': 'def double(x):\\n    return 2 * x\\n',
  'tinywheel-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\\nName: tinywheel\\nVersion: 1.0\\n',
  'tinywheel-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
}
def h(s):
    return 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(s.encode()).digest()).rstrip(b'=').decode()
record = ''.join(f'{p},{h(c)},{len(c.encode())}\\n' for p, c in files.items()) + 'tinywheel-1.0.dist-info/RECORD,,\\n'
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for p, c in files.items():
        z.writestr(p, c)
    z.writestr('tinywheel-1.0.dist-info/RECORD', record)
`;
  execFileSync('/usr/bin/python3', ['-c', script, file]);
  return file;
}

/**
 * A task whose tests need both installed dependencies: `add` from npm and `double` from a wheel in
 * the workspace's venv. The agent fixes the one real bug (the greeting).
 */
function task(name: string, deps: string[], integrity: string): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(
    path.join(dir, 'repo/package.json'),
    '{"name":"ws","version":"1.0.0","dependencies":{"tinydep":"1.0.0"}}\n',
  );
  writeFileSync(
    path.join(dir, 'repo/package-lock.json'),
    JSON.stringify({
      name: 'ws',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'ws', version: '1.0.0', dependencies: { tinydep: '1.0.0' } },
        'node_modules/tinydep': {
          version: '1.0.0',
          resolved: 'https://registry.npmjs.org/tinydep/-/tinydep-1.0.0.tgz',
          integrity,
        },
      },
    }),
  );
  writeFileSync(path.join(dir, 'repo/requirements.txt'), 'tinywheel==1.0\n');
  writeFileSync(path.join(dir, 'repo/.gitignore'), 'node_modules/\n.venv/\n');
  writeFileSync(path.join(dir, 'repo/greet.txt'), 'helo\n');
  writeFileSync(
    path.join(dir, 'repo/test.sh'),
    [
      `node -e 'process.exit(require("tinydep")(2, 3) === 5 ? 0 : 1)'`,
      `.venv/bin/python -c 'import tinywheel, sys; sys.exit(0 if tinywheel.double(21) == 42 else 1)'`,
      'grep -qx hello greet.txt',
    ].join(' && '),
  );
  writeFileSync(path.join(dir, 'agent.sh'), "sed -i 's/helo/hello/' greet.txt\n");
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: ${name}`,
      'task: {prompt: fix the greeting}',
      'repo: repo',
      'test_command: [sh, test.sh]',
      'setup:',
      '  dependencies:',
      ...deps.map((d) => `    - ${d}`),
      'setup_timeout_seconds: 60',
      'allowed_paths: [greet.txt]',
      `agent_command: [sh, ${JSON.stringify(path.join(dir, 'agent.sh'))}]`,
    ].join('\n'),
  );
  return dir;
}

/**
 * An sdist whose in-tree build backend (run only with `scripts: true`) fails with the list of the
 * HOME it runs in: setup's installers must see an empty one, never the run's canary HOME.
 */
function homeSpy(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const backend = [
    'import json, os',
    'def build_wheel(*args, **kwargs):',
    "    home = os.environ.get('HOME', '')",
    '    seen = sorted(os.listdir(home)) if os.path.isdir(home) else []',
    "    raise SystemExit('homespy HOME=' + home + ' files=' + json.dumps(seen))",
    'build_sdist = build_wheel',
  ].join('\n');
  const script = `
import io, sys, tarfile
files = {
  'homespy-1.0/PKG-INFO': 'Metadata-Version: 2.1\\nName: homespy\\nVersion: 1.0\\n',
  'homespy-1.0/pyproject.toml': '[build-system]\\nrequires = []\\nbuild-backend = "spy"\\nbackend-path = ["."]\\n',
  'homespy-1.0/spy.py': sys.argv[2],
}
with tarfile.open(sys.argv[1], 'w:gz') as t:
    for name, text in files.items():
        data = text.encode()
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
`;
  execFileSync('/usr/bin/python3', ['-c', script, path.join(folder, 'homespy-1.0.tar.gz'), backend]);
}

// Debian's python3 first: the sandbox hides /root, where a pyenv on PATH would live.
const run = (dir: string) => runBwrapStrace(dir, { PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}` });

const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

let integrity = '';
const npmCacheDir = path.join(work, 'shared/npm-cache');
const wheels = path.join(work, 'shared/wheels');

describe.skipIf(!ok)('setup.dependencies', () => {
  beforeAll(() => {
    integrity = npmCache(npmCacheDir);
    wheel(wheels);
  });

  it("installs npm and pip lockfiles from local caches offline: the tests use them, the agent's evidence has none of it", async () => {
    const dir = task(
      'installs',
      [
        `{manager: npm, lockfile: package-lock.json, cache: ${npmCacheDir}}`,
        `{manager: pip, requirements: requirements.txt, cache: ${wheels}, target: .venv}`,
      ],
      integrity,
    );
    const { code, report } = await run(dir);
    expect(report.result, JSON.stringify(report.checks.filter((c: { passed: boolean }) => !c.passed))).toBe(
      'PASS',
    );
    expect(code).toBe(0);
    expect(report.tests.passed).toBe(true);
    // What setup installed is the baseline, not the agent's change.
    expect(report.diff.files.map((f: { path: string }) => f.path)).toEqual(['greet.txt']);
    const evidence = path.join(report.run_dir, 'evidence');
    const setup = JSON.parse(readFileSync(path.join(evidence, 'setup.json'), 'utf8'));
    const lockSha = createHash('sha256')
      .update(readFileSync(path.join(dir, 'repo/package-lock.json')))
      .digest('hex');
    expect(setup.network).toBe('none');
    expect(setup.dependencies).toMatchObject([
      {
        entry: 'setup.dependencies[0]',
        manager: 'npm',
        manifest: 'package-lock.json',
        manifest_sha256: lockSha,
        source: 'cache',
        from: npmCacheDir,
        scripts: false,
        status: 'installed',
        exit_code: 0,
      },
      {
        entry: 'setup.dependencies[1]',
        manager: 'pip',
        manifest: 'requirements.txt',
        target: '.venv',
        status: 'installed',
        exit_code: 0,
      },
    ]);
    const commands = jsonl(path.join(evidence, 'commands.jsonl'));
    const setupCommands = commands.filter((c) => c.role === 'setup');
    expect(setupCommands.map((c) => c.argv.slice(0, 3).join(' '))).toEqual([
      'npm ci --no-audit',
      'python3 -m venv',
      `${path.join(report.run_dir, 'repo/.venv/bin/python')} -m pip`,
    ]);
    expect(setup.dependencies.flatMap((d: { command_ids: string[] }) => d.command_ids)).toEqual(
      setupCommands.map((c) => c.id),
    );
    // Outside the monitoring window: no install program in the agent's or the tests' events.
    const events = ['syscalls', 'test-syscalls'].flatMap((f) => jsonl(path.join(evidence, `${f}.jsonl`)));
    expect(events.some((e) => e.kind === 'exec' && (e.argv ?? []).includes('ci'))).toBe(false);
    expect(events.some((e) => e.kind === 'exec' && (e.argv ?? []).includes('pip'))).toBe(false);
    expect(events.some((e) => e.kind === 'exec' && (e.argv ?? []).includes('greet.txt'))).toBe(true);
    const timeline = jsonl(path.join(evidence, 'timeline.jsonl')).map((e) => e.event);
    expect(timeline.filter((e) => e === 'dependencies-installed')).toHaveLength(2);
    expect(timeline.indexOf('dependencies-installed')).toBeLessThan(timeline.indexOf('started'));
    const md = readFileSync(path.join(report.run_dir, 'report.md'), 'utf8');
    expect(md).toMatch(/## Setup\n/);
    expect(md).toContain('setup.dependencies\\[1\\]');
  }, 120_000);

  it('a cache miss ends the run as ERROR before the agent, naming the entry, with the output kept', async () => {
    const emptyCache = path.join(work, 'shared/empty-cache');
    mkdirSync(emptyCache, { recursive: true });
    const dir = task(
      'misses',
      [
        `{manager: pip, requirements: requirements.txt, cache: ${wheels}}`,
        `{manager: npm, cache: ${emptyCache}}`,
      ],
      integrity,
    );
    const { code, report } = await run(dir);
    expect(report.result).toBe('ERROR');
    expect(code).toBe(1);
    expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'setup-failed' });
    expect(report.agent.outcome.reason).toMatch(
      /setup\.dependencies\[1\] \(npm package-lock\.json\) failed \(exit \d+; its output is command setup-\d+ in evidence\/commands\.jsonl\)/,
    );
    expect(report.tests.ran).toBe(false);
    for (const f of ['report.json', 'report.md', 'report.html', 'manifest.json'])
      expect(existsSync(path.join(report.run_dir, f)), f).toBe(true);
    const commands = readFileSync(path.join(report.run_dir, 'evidence/commands.jsonl'), 'utf8');
    expect(commands).toContain('ENOTCACHED');
    expect(commands).not.toContain('"role":"agent"');
    // The install before the failure is kept, the failure recorded.
    const setup = JSON.parse(readFileSync(path.join(report.run_dir, 'evidence/setup.json'), 'utf8'));
    expect(setup.dependencies.map((d: { status: string }) => d.status)).toEqual(['installed', 'failed']);
  }, 120_000);

  it('reaches a mirror during setup only, through a proxy that allows only the mirror', async () => {
    const bytes = readFileSync(path.join(wheels, 'tinywheel-1.0-py3-none-any.whl'));
    const server: Server = createServer((req, res) => {
      if (req.url === '/simple/tinywheel/') {
        res.setHeader('content-type', 'text/html');
        res.end(
          '<html><body><a href="/files/tinywheel-1.0-py3-none-any.whl">tinywheel-1.0-py3-none-any.whl</a></body></html>',
        );
      } else if (req.url === '/files/tinywheel-1.0-py3-none-any.whl') {
        res.end(bytes);
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const dir = task(
        'mirror',
        [
          `{manager: npm, cache: ${npmCacheDir}}`,
          `{manager: pip, mirror: "http://127.0.0.1:${port}/simple/"}`,
        ],
        integrity,
      );
      const { report } = await run(dir);
      expect(report.result, JSON.stringify(report.agent.outcome)).toBe('PASS');
      const setup = JSON.parse(readFileSync(path.join(report.run_dir, 'evidence/setup.json'), 'utf8'));
      expect(setup.network).toBe(`allowlist: only 127.0.0.1:${port}, through a proxy of setup's own`);
      expect(setup.network_records.length).toBeGreaterThan(0);
      expect(
        setup.network_records.every(
          (r: { decision: string; port: number }) => r.decision === 'allowed' && r.port === port,
        ),
      ).toBe(true);
      // Setup's traffic is not the agent's.
      expect(readFileSync(path.join(report.run_dir, 'evidence/network.jsonl'), 'utf8').trim()).toBe('');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000);
  it("runs installers with an empty HOME of setup's own: a dependency's build code sees none of the run's canaries", async () => {
    const spyFolder = path.join(work, 'shared/homespy');
    homeSpy(spyFolder);
    const dir = task('home', [`{manager: pip, cache: ${spyFolder}, scripts: true}`], integrity);
    writeFileSync(path.join(dir, 'repo/requirements.txt'), 'homespy==1.0\n');
    const { report } = await run(dir);
    // The build fails on purpose, saying what it saw.
    expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'setup-failed' });
    const commands = readFileSync(path.join(report.run_dir, 'evidence/commands.jsonl'), 'utf8');
    const said = /homespy HOME=(\S+) files=(\[[^\]]*\])/.exec(commands.replace(/\\"/g, '"'));
    expect(said, commands.slice(0, 3000)).not.toBeNull();
    const seen = JSON.parse(said?.[2] ?? '[]') as string[];
    for (const canary of ['.npmrc', '.ssh', '.aws', '.env', '.gitconfig']) expect(seen).not.toContain(canary);
    // The path the agent's HOME is seen at, with setup's own folder behind it; gone after setup.
    const canaries = JSON.parse(readFileSync(path.join(report.run_dir, 'evidence/canaries.json'), 'utf8'));
    expect(said?.[1]).toBe(canaries.home);
    expect(existsSync(path.join(report.run_dir, 'setup-home'))).toBe(false);
  }, 120_000);

  it("npm refuses a tarball other than the one its lockfile's integrity names: a tarball changed in the cache is found corrupt and ends setup as ERROR, nothing of it installed", async () => {
    const cache = path.join(work, 'shared/tampered-cache');
    cpSync(npmCacheDir, cache, { recursive: true });
    const hex = Buffer.from(integrity.slice('sha512-'.length), 'base64').toString('hex');
    const content = path.join(
      cache,
      '_cacache/content-v2/sha512',
      hex.slice(0, 2),
      hex.slice(2, 4),
      hex.slice(4),
    );
    expect(existsSync(content)).toBe(true);
    writeFileSync(content, 'not the tarball the lockfile names');
    const dir = task('tampered', [`{manager: npm, cache: ${cache}}`], integrity);
    const { report } = await run(dir);
    expect(report.result).toBe('ERROR');
    expect(report.agent.outcome).toMatchObject({ status: 'stopped', by: 'setup-failed' });
    const commands = readFileSync(path.join(report.run_dir, 'evidence/commands.jsonl'), 'utf8');
    expect(commands).toContain('seems to be corrupted');
    expect(commands).not.toContain('"role":"agent"');
    expect(existsSync(path.join(report.run_dir, 'repo/node_modules/tinydep/index.js'))).toBe(false);
  }, 120_000);
});
