import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { committedRepo, execCli, ROOT, tempDir } from './exec-cli.js';

/*
 * Issue 42 for the Python projects uv and poetry make, where PyPI is out of reach: a package index
 * on loopback (PEP 503, as a company mirror is) serves wheels of this machine's own pytest and its
 * dependencies, and a small `tinywheel` at versions 1.0 and 2.0. Each repository declares its
 * dependencies in pyproject.toml only and pins them in its lockfile; `init`, told the index the way
 * pip is (PIP_INDEX_URL), writes a config that installs the locked versions into .venv and runs
 * pytest from it with no PYTHONPATH, and its check passes; `run --agent mock-noop` PASSes with no
 * alert under both tracers and reuses the venv init's check made; a test edit FAILs.
 */

const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
const PY = '/usr/bin/python3';
const debianPytest = spawnSync(PY, ['-c', 'import pytest, venv, ensurepip']).status === 0;
const ok = process.getuid?.() === 0 && has('bwrap') && has('strace') && debianPytest;
if (!ok)
  console.warn(
    'python-projects e2e skipped: needs root, bwrap, strace and /usr/bin/python3 with pytest and venv (CI has them)',
  );
const collectorBuilt = existsSync(path.join(ROOT, 'collector/build/agentguard-collector'));
const TRACERS = ['strace', ...(collectorBuilt ? ['ebpf'] : [])];

const work = tempDir('ag-python-projects-');
const wheels = path.join(work, 'wheels');
let server: Server | null = null;
let index = '';
// Many venvs and run folders: removing them takes a while on a loaded machine.
afterAll(() => {
  server?.close();
  rmSync(work, { recursive: true, force: true });
}, 300_000);

/**
 * Wheels of installed distributions (their files and metadata as installed), and tinywheel 1.0 and
 * 2.0 whose `V` says which one was installed.
 */
const WHEELHOUSE = String.raw`
import base64, hashlib, importlib.metadata as md, os, sys, zipfile
out = sys.argv[1]
def wheel(name, version, files, metadata):
    info = f'{name}-{version}.dist-info'
    files = dict(files)
    files[f'{info}/METADATA'] = metadata.encode()
    files[f'{info}/WHEEL'] = b'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'
    h = lambda b: 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()
    record = ''.join(f'{p},{h(b)},{len(b)}\n' for p, b in files.items()) + f'{info}/RECORD,,\n'
    with zipfile.ZipFile(os.path.join(out, f'{name}-{version}-py3-none-any.whl'), 'w') as z:
        for p, b in files.items():
            z.writestr(p, b)
        z.writestr(f'{info}/RECORD', record)
for dist, tops in [('pytest', ['pytest', '_pytest', 'py.py']), ('attrs', ['attr', 'attrs']), ('iniconfig', ['iniconfig']), ('packaging', ['packaging']), ('pluggy', ['pluggy'])]:
    d = md.distribution(dist)
    base = str(d.locate_file(''))
    files = {}
    for top in tops:
        p = os.path.join(base, top)
        if os.path.isfile(p):
            files[top] = open(p, 'rb').read()
        for root, dirs, names in os.walk(p):
            dirs[:] = [x for x in dirs if x != '__pycache__']
            for n in names:
                full = os.path.join(root, n)
                files[os.path.relpath(full, base)] = open(full, 'rb').read()
    meta = d.read_text('METADATA') or d.read_text('PKG-INFO')
    wheel(d.metadata['Name'], d.version, files, meta)
for v in ['1.0', '2.0']:
    wheel('tinywheel', v, {'tinywheel/__init__.py': f'V = {v!r}\n'.encode()}, f'Metadata-Version: 2.1\nName: tinywheel\nVersion: {v}\n')
`;

const normal = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** A PEP 503 simple index over the wheel folder. */
function serveIndex(): Promise<string> {
  const files = readdirSync(wheels);
  server = createServer((req, res) => {
    const project = /^\/simple\/([^/]+)\/$/.exec(req.url ?? '');
    const file = /^\/files\/([^/]+)$/.exec(req.url ?? '');
    if (project) {
      const mine = files.filter((f) => normal(f.split('-')[0] as string) === normal(project[1] as string));
      res.setHeader('content-type', 'text/html');
      res.end(
        `<html><body>${mine.map((f) => `<a href="/files/${encodeURIComponent(f)}">${f}</a>`).join('\n')}</body></html>`,
      );
    } else if (file && files.includes(decodeURIComponent(file[1] as string))) {
      res.end(readFileSync(path.join(wheels, decodeURIComponent(file[1] as string))));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  return new Promise((resolve) =>
    server?.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server?.address() as AddressInfo | undefined)?.port}/simple/`),
    ),
  );
}

/** A clean environment with Debian's python3 first (a pyenv under HOME is hidden by the sandbox). */
const cli = (args: string[], cwd: string) =>
  execCli(args, { cwd, env: { PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}`, PIP_INDEX_URL: index } });

/** A clone as a user has it, under the test's folder. */
function clone(name: string, files: Record<string, string>): string {
  return committedRepo(path.join(work, name), files);
}

type Report = {
  result: string;
  agent: { outcome: { status: string; by?: string; reason?: string } };
  run_dir: string;
  alerts: { rule: string; process: { exe: string; argv: string[] } }[];
  checks: { id: string; passed: boolean }[];
};

async function run(dir: string, config: string, tracer: string, agent?: string): Promise<Report> {
  const args = ['run', config, '--json', '--sandbox', 'bwrap', '--tracer', tracer];
  const r = await cli(agent ? [...args, '--agent', agent] : args, dir);
  expect(r.stdout.startsWith('{'), r.stderr).toBe(true);
  return JSON.parse(r.stdout) as Report;
}

const failed = (r: Report) => r.checks.filter((c) => !c.passed).map((c) => c.id);
const setupOf = (r: Report) =>
  JSON.parse(readFileSync(path.join(r.run_dir, 'evidence/setup.json'), 'utf8')) as {
    dependencies: {
      cache_key: string;
      reused?: boolean;
      duration_ms: number;
      status: string;
      inputs: { path: string; sha256: string | null }[];
      installer?: string;
      unlocked?: string[];
    }[];
  };

const LOCK_PIN = (tool: 'uv' | 'poetry') =>
  tool === 'uv'
    ? 'version = 1\nrequires-python = ">=3.9"\n\n[[package]]\nname = "calc"\nversion = "0.1.0"\nsource = { editable = "." }\n\n[[package]]\nname = "pytest"\nversion = "7.2.1"\nsource = { registry = "https://pypi.org/simple" }\n\n[[package]]\nname = "tinywheel"\nversion = "1.0"\nsource = { registry = "https://pypi.org/simple" }\n'
    : '[[package]]\nname = "tinywheel"\nversion = "1.0"\ndescription = ""\noptional = false\npython-versions = "*"\nfiles = []\n\n[metadata]\nlock-version = "2.0"\npython-versions = "^3.9"\ncontent-hash = "0"\n';

const TEST =
  'import tinywheel\nfrom calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_locked_version():\n    assert tinywheel.V == "1.0"\n';

describe.skipIf(!ok)('Python projects from init, unedited', () => {
  beforeAll(async () => {
    mkdirSync(wheels, { recursive: true });
    execFileSync(PY, ['-c', WHEELHOUSE, wheels]);
    index = await serveIndex();
  }, 60_000);

  it('uv (PEP 621 dependencies, a dev group, uv.lock, src/ layout): the locked versions into .venv, the project importable without PYTHONPATH; PASS with no alert under both tracers, the venv reused; a test edit FAILs', async () => {
    const dir = clone('uv', {
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\nrequires-python = ">=3.9"\ndependencies = ["tinywheel>=1"]\n\n[dependency-groups]\ndev = ["pytest>=7"]\n\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n',
      'uv.lock': LOCK_PIN('uv'),
      '.gitignore': '.venv/\n__pycache__/\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': TEST,
    });
    const init = await cli(['init'], dir);
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain(`setup installs: pip pyproject.toml at uv.lock's versions from ${index}`);
    expect(init.stdout).toContain('tests: .venv/bin/python -m pytest');
    expect(init.stdout).toContain("check: the untouched repository's tests pass");
    const config = readFileSync(path.join(dir, 'agentguard.yaml'), 'utf8');
    expect(config).toContain('"groups":["dev"]');
    expect(config).not.toContain('PYTHONPATH');

    // init's check installed and kept the venv; this run reuses it. With the cache emptied, the next
    // run installs again, and the runs after it reuse that.
    const first = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([first.result, first.alerts, failed(first)]).toEqual(['PASS', [], []]);
    const reused = setupOf(first).dependencies[0];
    expect(reused).toMatchObject({ status: 'installed', reused: true });
    const cached = path.join(dir, '.agentguard/cache/dependencies', reused?.cache_key ?? '');
    expect(existsSync(path.join(cached, 'venv/bin/python'))).toBe(true);
    rmSync(cached, { recursive: true });
    const installs = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([installs.result, installs.alerts]).toEqual(['PASS', []]);
    const installed = setupOf(installs).dependencies[0];
    expect(installed?.reused).toBeUndefined();
    for (const tracer of TRACERS) {
      const again = await run(dir, 'agentguard.yaml', tracer, 'mock-noop');
      expect([tracer, again.result, again.alerts, failed(again)]).toEqual([tracer, 'PASS', [], []]);
      const dep = setupOf(again).dependencies[0];
      expect(dep?.reused).toBe(true);
      console.log(
        `python-projects: venv install ${installed?.duration_ms} ms, reused ${dep?.duration_ms} ms (${tracer})`,
      );
      expect(dep?.duration_ms).toBeLessThan(installed?.duration_ms ?? 0);
    }

    writeFileSync(
      path.join(dir, 'tamper.yaml'),
      `${config}agent_command: ${JSON.stringify(['sh', '-c', "echo 'assert True' >> tests/test_calc.py"])}\n`,
    );
    const tampered = await run(dir, 'tamper.yaml', 'strace');
    expect(tampered.result).toBe('FAIL');
    expect(failed(tampered)).toContain('test-tampering');
  }, 600_000);

  it("poetry ([tool.poetry] dependencies, a test group, poetry.lock, flat layout): init's config installs the locked versions and PASSes with no alert", async () => {
    const dir = clone('poetry', {
      'pyproject.toml':
        '[tool.poetry]\nname = "calc"\nversion = "0.1.0"\ndescription = ""\nauthors = []\n\n[tool.poetry.dependencies]\npython = "^3.9"\ntinywheel = "^1.0"\n\n[tool.poetry.group.test.dependencies]\npytest = ">=7"\n\n[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n',
      'poetry.lock': LOCK_PIN('poetry'),
      '.gitignore': '.venv/\n__pycache__/\n',
      'calc/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': TEST,
    });
    const init = await cli(['init'], dir);
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain(
      `setup installs: pip pyproject.toml at poetry.lock's versions from ${index}`,
    );
    expect(init.stdout).toContain("check: the untouched repository's tests pass");
    const noop = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([noop.result, noop.alerts, failed(noop)]).toEqual(['PASS', [], []]);
  }, 300_000);

  it('a uv project whose .venv the user made: init uses it as it is, with no install and no uv; PASS with no alert', async () => {
    const dir = clone('own-venv', {
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\ndependencies = ["tinywheel>=1"]\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'uv.lock': LOCK_PIN('uv'),
      '.gitignore': '.venv/\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': TEST,
    });
    // What `uv sync` leaves, made with what this machine has: a venv over Debian's python (its
    // pytest), tinywheel from the wheel folder, the project editable.
    execFileSync(PY, ['-m', 'venv', '--system-site-packages', path.join(dir, '.venv')]);
    const pip = [path.join(dir, '.venv/bin/python'), '-m', 'pip', 'install', '-q', '--no-index'];
    execFileSync(pip[0] as string, [...pip.slice(1), '--find-links', wheels, 'tinywheel==1.0']);
    const site = execFileSync(
      path.join(dir, '.venv/bin/python'),
      ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
      { encoding: 'utf8' },
    ).trim();
    writeFileSync(path.join(site, '_calc.pth'), `${path.join(dir, 'src')}\n`);
    const init = await cli(['init'], dir);
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).not.toContain('setup installs');
    expect(init.stdout).toContain('tests: env PYTHONPATH=src .venv/bin/python -m pytest');
    expect(init.stdout).toContain("check: the untouched repository's tests pass");
    const noop = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([noop.result, noop.alerts, failed(noop)]).toEqual(['PASS', [], []]);
  }, 300_000);
  it("uv.lock's hashes: setup.json names each input's sha256 and the cache follows the lockfile (changed: installed again; unchanged: reused); a wheel the lockfile's hashes do not allow stops setup, naming the package and the lockfile", async () => {
    const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    const locked = 'name = "tinywheel"\nversion = "1.0"\nsource = { registry = "https://pypi.org/simple" }\n';
    const hashed = (hash: string) =>
      LOCK_PIN('uv').replace(
        locked,
        `${locked}wheels = [{ url = "https://files.example/tinywheel-1.0-py3-none-any.whl", hash = "sha256:${hash}" }]\n`,
      );
    const good = sha(path.join(wheels, 'tinywheel-1.0-py3-none-any.whl'));
    const dir = clone('uv-hashes', {
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\nrequires-python = ">=3.9"\ndependencies = ["tinywheel>=1"]\n\n[dependency-groups]\ndev = ["pytest>=7"]\n',
      'uv.lock': hashed(good),
      '.gitignore': '.venv/\n__pycache__/\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': TEST,
    });
    const lock = path.join(dir, 'uv.lock');
    const init = await cli(['init'], dir);
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain("check: the untouched repository's tests pass");
    const first = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([first.result, first.alerts, failed(first)]).toEqual(['PASS', [], []]);
    const kept = setupOf(first).dependencies[0];
    expect(kept?.inputs).toEqual([
      { path: 'pyproject.toml', sha256: sha(path.join(dir, 'pyproject.toml')) },
      { path: 'uv.lock', sha256: sha(lock) },
    ]);
    expect(kept?.reused).toBe(true);
    expect(kept?.installer).toBe("pip, at uv.lock's versions and hashes (uv itself is not run)");

    writeFileSync(lock, `${hashed(good)}# locked again\n`);
    const changed = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([changed.result, changed.alerts]).toEqual(['PASS', []]);
    const installed = setupOf(changed).dependencies[0];
    expect(installed?.reused).toBeUndefined();
    expect(installed?.cache_key).not.toBe(kept?.cache_key);
    expect(installed?.inputs[1]).toEqual({ path: 'uv.lock', sha256: sha(lock) });
    const same = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect(setupOf(same).dependencies[0]).toMatchObject({ reused: true, cache_key: installed?.cache_key });

    writeFileSync(lock, hashed('0'.repeat(64)));
    const refused = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect(refused.result).toBe('ERROR');
    expect(refused.agent.outcome).toMatchObject({ status: 'stopped', by: 'setup-failed' });
    expect(refused.agent.outcome.reason).toContain('uv.lock: tinywheel does not match the lockfile');
    expect(refused.agent.outcome.reason).toContain(`sha256:${good}`);
  }, 600_000);

  it('a venv the user made with `pip install -e .` (an absolute .pth and a console script naming their checkout): in the run both name the workspace, so the tests run its code; PASS with no alert', async () => {
    const dir = clone('editable', {
      'pyproject.toml':
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "calc"\nversion = "0.1.0"\n\n[project.scripts]\ncalc-where = "calc:where"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      '.gitignore': '.venv/\n*.egg-info/\n__pycache__/\n',
      'src/calc/__init__.py': 'def add(a, b):\n    return a + b\n\n\ndef where():\n    print(__file__)\n',
      'tests/test_calc.py':
        "import os\nimport subprocess\n\nfrom calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_the_cli_runs_this_checkout():\n    cli = os.path.join(os.getcwd(), '.venv', 'bin', 'calc-where')\n    out = subprocess.run([cli], cwd='/', env={'PATH': '/usr/bin:/bin'}, capture_output=True, text=True, check=True)\n    assert out.stdout.strip() == os.path.join(os.getcwd(), 'src', 'calc', '__init__.py')\n",
    });
    const python = path.join(dir, '.venv/bin/python');
    execFileSync(PY, ['-m', 'venv', '--system-site-packages', path.join(dir, '.venv')]);
    execFileSync(python, ['-m', 'pip', 'install', '-q', '--no-index', '--no-build-isolation', '-e', dir]);
    // As the user has it: their checkout's tests pass from their checkout.
    expect(spawnSync(python, ['-m', 'pytest', '-q'], { cwd: dir }).status).toBe(0);
    const init = await cli(['init'], dir);
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain("check: the untouched repository's tests pass");
    const noop = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([noop.result, noop.alerts, failed(noop)]).toEqual(['PASS', [], []]);
  }, 300_000);

  it('a flat layout the way older projects are (setup.py/setup.cfg, requirements.txt and a requirements-dev.txt including it, a Makefile whose test target sets an env var, a data file): init runs `make test` with .venv first on PATH and its check passes; both installs into .venv are reused together; PASS with no alert; a test edit FAILs', async () => {
    const dir = clone('make-flat', {
      'setup.py': 'from setuptools import setup\n\nsetup()\n',
      'setup.cfg':
        '[metadata]\nname = calc\nversion = 1.0.0\n\n[options]\npackages = find:\ninstall_requires =\n    tinywheel\n\n[options.packages.find]\nexclude = tests\n\n[tool:pytest]\ntestpaths = tests\naddopts = -ra --strict-markers\n',
      'requirements.txt': 'tinywheel==1.0\n',
      'requirements-dev.txt': '-r requirements.txt\npytest>=7\n',
      Makefile: '.PHONY: test\ntest:\n\tCALC_MODE=test python -m pytest\n',
      '.gitignore': '.venv/\n__pycache__/\n*.egg-info/\n',
      'calc/__init__.py':
        'import os\n\n\ndef add(a, b):\n    return a + b\n\n\ndef mode():\n    return os.environ.get("CALC_MODE", "prod")\n',
      'tests/data/cases.txt': '1 2 3\n',
      'tests/test_calc.py':
        'import os\n\nimport tinywheel\nfrom calc import add, mode\n\nHERE = os.path.dirname(__file__)\n\n\ndef test_cases():\n    with open(os.path.join(HERE, "data", "cases.txt")) as f:\n        a, b, c = map(int, f.read().split())\n    assert add(a, b) == c\n\n\ndef test_the_makefile_environment():\n    assert mode() == "test"\n    assert tinywheel.V == "1.0"\n',
    });
    const init = await cli(['init'], dir);
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain('tests: make test (Makefile target test)');
    expect(init.stdout).toContain("check: the untouched repository's tests pass");
    const first = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([first.result, first.alerts, failed(first)]).toEqual(['PASS', [], []]);
    const deps = setupOf(first).dependencies;
    expect(deps.map((d) => [d.status, d.reused])).toEqual([
      ['installed', true],
      ['installed', true],
    ]);
    // The second entry's venv holds the first's packages too: its key follows both files.
    expect(deps[1]?.cache_key).not.toBe(deps[0]?.cache_key);
    writeFileSync(
      path.join(dir, 'tamper.yaml'),
      `${readFileSync(path.join(dir, 'agentguard.yaml'), 'utf8')}agent_command: ${JSON.stringify(['sh', '-c', "echo 'assert True' >> tests/test_calc.py"])}\n`,
    );
    const tampered = await run(dir, 'tamper.yaml', 'strace');
    expect(tampered.result).toBe('FAIL');
    expect(failed(tampered)).toContain('test-tampering');
  }, 600_000);

  it("a stale uv.lock (pyproject.toml declares a dependency the lockfile does not list): setup.json names what was installed unchecked, at the index's version, on the install and on the reuse", async () => {
    const dir = clone('uv-stale', {
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\nrequires-python = ">=3.9"\ndependencies = ["tinywheel>=1"]\n\n[tool.uv]\ndev-dependencies = ["pytest>=7"]\n',
      'uv.lock': LOCK_PIN('uv').replace(
        '\n[[package]]\nname = "tinywheel"\nversion = "1.0"\nsource = { registry = "https://pypi.org/simple" }\n',
        '',
      ),
      '.gitignore': '.venv/\n__pycache__/\n',
      'calc/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
    });
    const init = await cli(['init'], dir);
    expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
    expect(init.stdout).toContain("check: the untouched repository's tests pass");
    const noop = await run(dir, 'agentguard.yaml', 'strace', 'mock-noop');
    expect([noop.result, noop.alerts, failed(noop)]).toEqual(['PASS', [], []]);
    const dep = setupOf(noop).dependencies[0];
    expect(dep?.reused).toBe(true);
    expect(dep?.unlocked).toContain('tinywheel==2.0');
    expect(dep?.unlocked?.some((u) => u.startsWith('pytest=='))).toBe(false);
    const timeline = readFileSync(path.join(noop.run_dir, 'evidence/timeline.jsonl'), 'utf8');
    expect(timeline).toContain('uv.lock does not list');
  }, 300_000);
});
