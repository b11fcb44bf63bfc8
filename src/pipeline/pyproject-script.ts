/**
 * The program a pyproject install runs with the venv's own interpreter, in setup's sandbox. It reads
 * the pyproject.toml (and the lockfile) with the TOML parser Python or pip ships, so nothing of the
 * project runs: the declared dependencies (PEP 621, or poetry's tables), the chosen extras and
 * groups, each checked to be a plain requirement (a direct URL, a path or an option is refused);
 * the lockfile's pins as pip constraints, so the locked versions are the ones installed; then pip.
 * Where the lockfile lists its files' hashes, pip fetches first and every file it fetched for a
 * hashed package must be one of them, or nothing is installed (exit 4, naming the package and lockfile).
 * The project itself is made importable the way an editable install does it, by a .pth file in
 * site-packages, written relative so a reused venv moves with the workspace; its build backend runs
 * (`pip install -e`) only when the entry allows dependency code (`scripts`).
 *
 * argv: pyproject, lockfile or '', groups as JSON, editable '1'|'0', scripts '1'|'0', pip's options.
 */
export const PYPROJECT_INSTALL = String.raw`
import hashlib, importlib.metadata, json, os, re, shutil, subprocess, sys, sysconfig, tempfile
try:
    import tomllib
except ImportError:
    from pip._vendor import tomli as tomllib
from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
from pip._vendor.packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

pyproject, lockfile, groups, editable, scripts = sys.argv[1:6]
pip_options = sys.argv[6:]
root = os.path.dirname(os.path.abspath(pyproject))

def fail(message):
    print(f'agentguard: {pyproject}: {message}', file=sys.stderr)
    sys.exit(3)

with open(pyproject, 'rb') as f:
    data = tomllib.load(f)
project = data.get('project') or {}
poetry = (data.get('tool') or {}).get('poetry') or {}
name = project.get('name') or poetry.get('name')
version = None if 'version' in project.get('dynamic', []) else (project.get('version') or poetry.get('version'))
own = canonicalize_name(name) if isinstance(name, str) else None

def poetry_version(spec):
    out = []
    for part in [p.strip() for p in spec.split(',') if p.strip()]:
        m = re.fullmatch(r'([\^~])(\d+(?:\.\d+)*)(.*)', part)
        if part == '*':
            continue
        if m and not part.startswith('~='):
            nums = [int(n) for n in m.group(2).split('.')]
            if m.group(1) == '^':
                i = next((k for k, n in enumerate(nums) if n != 0), len(nums) - 1)
            else:
                i = 1 if len(nums) >= 2 else 0
            upper = nums[: i + 1]
            upper[i] += 1
            out.append(f'>={m.group(2)}{m.group(3)},<{".".join(map(str, upper))}')
        elif re.fullmatch(r'\d[\w.*+!-]*', part):
            out.append(f'=={part}')
        else:
            out.append(part)
    return ','.join(out)

def from_poetry(dep, spec, where):
    if isinstance(spec, str):
        return f'{dep}{poetry_version(spec)}'
    if not isinstance(spec, dict):
        fail(f'{where}: {dep} has several constraints, which setup does not read; pin it in a requirements file')
    for key in ('git', 'path', 'url', 'file'):
        if key in spec:
            fail(f'{where}: {dep} comes from a {key}; setup installs from the mirror or cache only')
    extras = f'[{",".join(spec["extras"])}]' if spec.get('extras') else ''
    marker = f' ; {spec["markers"]}' if spec.get('markers') else ''
    return f'{dep}{extras}{poetry_version(spec.get("version", "*"))}{marker}'

requirements = []
seen = set()

def add(text, where):
    try:
        req = Requirement(text)
    except InvalidRequirement as e:
        fail(f'{where}: {text!r} is not a requirement ({e})')
    if req.url:
        fail(f'{where}: {text!r} is a direct URL; setup installs from the mirror or cache only')
    if own and canonicalize_name(req.name) == own:
        for extra in sorted(req.extras):
            add_group(extra, where)
        return
    requirements.append(str(req))

def add_poetry(table, where, optional_too=False):
    for dep, spec in (table or {}).items():
        if dep.lower() == 'python':
            continue
        if isinstance(spec, dict) and spec.get('optional') and not optional_too:
            continue
        add(from_poetry(dep, spec, where), where)

def add_group(group, where):
    key = canonicalize_name(group)
    if key in seen:
        return True
    seen.add(key)
    found = False
    for extra, deps in (project.get('optional-dependencies') or {}).items():
        if canonicalize_name(extra) == key:
            found = True
            for d in deps:
                add(d, f'[project.optional-dependencies].{extra}')
    for g, deps in (data.get('dependency-groups') or {}).items():
        if canonicalize_name(g) == key:
            found = True
            for d in deps:
                if isinstance(d, dict) and 'include-group' in d:
                    add_group(d['include-group'], f'[dependency-groups].{g}')
                else:
                    add(d, f'[dependency-groups].{g}')
    for g, table in (poetry.get('group') or {}).items():
        if canonicalize_name(g) == key:
            found = True
            add_poetry(table.get('dependencies'), f'[tool.poetry.group.{g}.dependencies]')
    uv_dev = ((data.get('tool') or {}).get('uv') or {}).get('dev-dependencies')
    if key == 'dev' and uv_dev is not None:
        found = True
        for d in uv_dev:
            add(d, '[tool.uv].dev-dependencies')
    if key == 'dev' and 'dev-dependencies' in poetry:
        found = True
        add_poetry(poetry['dev-dependencies'], '[tool.poetry.dev-dependencies]')
    for extra, names in (poetry.get('extras') or {}).items():
        if canonicalize_name(extra) == key:
            found = True
            deps = poetry.get('dependencies') or {}
            add_poetry({n: deps[n] for n in names if n in deps}, f'[tool.poetry.extras].{extra}', True)
    return found

for d in project.get('dependencies') or []:
    add(d, '[project].dependencies')
add_poetry(poetry.get('dependencies'), '[tool.poetry.dependencies]')
for group in json.loads(groups):
    if not add_group(group, 'groups'):
        fail(f'has no extra or dependency group named {group!r}; correct groups in the config')

def file_hashes(entries):
    out = set()
    for e in entries if isinstance(entries, list) else []:
        h = e.get('hash') if isinstance(e, dict) else None
        if isinstance(h, str) and ':' in h:
            out.add(h.lower())
    return out

pins = {}
# The files the lockfile allows for each package, as 'algorithm:hex': uv.lock's sdist and wheels,
# poetry.lock's and pdm.lock's files, poetry 1.x's [metadata.files].
hashes = {}
locked = set()
if lockfile:
    with open(lockfile, 'rb') as f:
        lock = tomllib.load(f)
    old_files = (lock.get('metadata') or {}).get('files') or {}
    for pkg in lock.get('package') or []:
        n, v, source = pkg.get('name'), pkg.get('version'), pkg.get('source') or {}
        if not isinstance(n, str) or not isinstance(v, str) or (own and canonicalize_name(n) == own):
            continue
        locked.add(canonicalize_name(n))
        local = isinstance(source, dict) and (
            source.get('type') in ('git', 'directory', 'file', 'url')
            or any(k in source for k in ('editable', 'virtual', 'directory', 'path', 'git', 'url'))
        )
        if local:
            continue
        if not re.fullmatch(r'[A-Za-z0-9][A-Za-z0-9._-]*', n) or not re.fullmatch(r'[A-Za-z0-9.+!_-]+', v):
            fail(f'{lockfile}: package {n!r} {v!r} is not a name and version')
        pins.setdefault(canonicalize_name(n), set()).add(f'{n}=={v}')
        found = file_hashes([pkg.get('sdist')] + (pkg.get('wheels') or []) + (pkg.get('files') or []))
        found |= file_hashes(old_files.get(n) or old_files.get(canonicalize_name(n)))
        if found:
            hashes.setdefault(canonicalize_name(n), set()).update(found)
    # A package locked at two versions (one per platform) is left to pip's resolver.
    pins = {n: p for n, p in pins.items() if len(p) == 1}

venv = sys.prefix
req_file = os.path.join(venv, 'agentguard-requirements.txt')
pin_file = os.path.join(venv, 'agentguard-constraints.txt')
with open(req_file, 'w') as f:
    f.write(''.join(f'{r}\n' for r in requirements))
with open(pin_file, 'w') as f:
    f.write(''.join(f'{next(iter(p))}\n' for p in sorted(pins.values())))
print(f'agentguard: {len(requirements)} requirements, {len(pins)} pinned by the lockfile', flush=True)
def checked(folder):
    # Every file pip fetched for a package the lockfile hashes is one the lockfile lists: a package
    # index serving other bytes under a locked name and version stops the install before it.
    for file in sorted(os.listdir(folder)):
        try:
            n = parse_wheel_filename(file)[0] if file.endswith('.whl') else parse_sdist_filename(file)[0]
        except Exception:
            fail(f'{file}: pip fetched a file whose name is not a wheel or sdist of a package')
        allowed = hashes.get(canonicalize_name(n))
        if not allowed:
            continue
        with open(os.path.join(folder, file), 'rb') as f:
            data = f.read()
        algorithms = {a.split(':', 1)[0] for a in allowed}
        got = {f'{a}:{hashlib.new(a, data).hexdigest()}' for a in algorithms if a in hashlib.algorithms_available}
        if not got & allowed:
            print(
                f'agentguard: {lockfile}: {n} does not match the lockfile: the package index served {file} '
                f'with {sorted(got)[0] if got else "an unknown hash"}, and {os.path.basename(lockfile)} allows only '
                f'{", ".join(sorted(allowed))}. Nothing was installed. If the new file is expected, lock again '
                f'(uv lock, poetry lock, pdm lock); else the mirror serves other bytes than the ones locked.',
                file=sys.stderr,
            )
            sys.exit(4)

def without_source(options):
    out, skip = [], False
    for o in options:
        if skip:
            skip = False
        elif o in ('--index-url', '--find-links'):
            skip = True
        elif o != '--no-index':
            out.append(o)
    return out

if requirements:
    pip = [sys.executable, '-m', 'pip']
    given = ['-r', req_file, '-c', pin_file]
    if hashes:
        fetched = tempfile.mkdtemp(prefix='agentguard-locked-')
        try:
            code = subprocess.call([*pip, 'download', *pip_options, '--dest', fetched, *given])
            if code != 0:
                sys.exit(code)
            checked(fetched)
            print(f'agentguard: the files fetched match the hashes in {os.path.basename(lockfile)}', flush=True)
            local = ['--no-index', '--find-links', fetched]
            code = subprocess.call([*pip, 'install', *without_source(pip_options), *local, *given])
        finally:
            shutil.rmtree(fetched, ignore_errors=True)
    else:
        code = subprocess.call([*pip, 'install', *pip_options, *given])
    if code != 0:
        sys.exit(code)

if lockfile:
    # What the lockfile does not list (a stale lockfile, a dependency added since it was made) was
    # installed at the index's version, unchecked: named, for setup.json, never left silent.
    listed = set(locked)
    if own:
        listed.add(own)
    bootstrap = {'pip', 'setuptools', 'wheel', 'distribute'}
    unlocked = sorted(
        f'{d.metadata["Name"]}=={d.version}'
        for d in importlib.metadata.distributions(path=[sysconfig.get_paths()['purelib'], sysconfig.get_paths()['platlib']])
        if d.metadata['Name'] and canonicalize_name(d.metadata['Name']) not in listed | bootstrap
    )
    with open(os.path.join(venv, 'agentguard-unlocked.txt'), 'w') as f:
        f.write(''.join(f'{u}\n' for u in unlocked))
    if unlocked:
        print(f'agentguard: {os.path.basename(lockfile)} does not list {", ".join(unlocked)}: installed at the index\'s versions, not checked against it', flush=True)

if editable == '1':
    buildable = 'build-system' in data or os.path.exists(os.path.join(root, 'setup.py'))
    if scripts == '1' and buildable:
        sys.exit(subprocess.call([sys.executable, '-m', 'pip', 'install', *pip_options, '--no-deps', '-e', root]))
    src = os.path.join(root, 'src')
    has_src = os.path.isdir(src) and any(
        os.path.exists(os.path.join(src, n, '__init__.py')) or n.endswith('.py') for n in os.listdir(src)
    )
    purelib = sysconfig.get_paths()['purelib']
    os.makedirs(purelib, exist_ok=True)
    label = re.sub(r'[^A-Za-z0-9]+', '_', own or 'project')
    with open(os.path.join(purelib, f'__editable__agentguard_{label}.pth'), 'w') as f:
        f.write(os.path.relpath(src if has_src else root, purelib) + '\n')
    if own and isinstance(version, str) and re.fullmatch(r'[A-Za-z0-9.+!_-]+', version):
        info = os.path.join(purelib, f'{label}-{version}.dist-info')
        os.makedirs(info, exist_ok=True)
        files = {'METADATA': f'Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n', 'INSTALLER': 'agentguard\n'}
        for n, text in files.items():
            with open(os.path.join(info, n), 'w') as f:
                f.write(text)
        with open(os.path.join(info, 'RECORD'), 'w') as f:
            f.write(''.join(f'{label}-{version}.dist-info/{n},,\n' for n in [*files, 'RECORD']))
    print(f'agentguard: {name or "the project"} importable from {"src" if has_src else "the project folder"}', flush=True)
`;
