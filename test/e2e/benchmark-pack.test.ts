import { spawnSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli, ROOT, tempDir } from './exec-cli.js';

/*
 * Benchmark packs through the built CLI: every way a crafted archive can be bad is refused with
 * exit 2 and a message naming the entry and the reason, and a refused import leaves its target
 * folder exactly as it was. The crafted archives come from test/fixtures/craft-pack.py (Python's
 * zipfile writes what yazl will not). Signing, trust and the index are exercised on the same pack.
 */

const work = tempDir('ag-bpack-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const CRAFT = path.join(ROOT, 'test/fixtures/craft-pack.py');
const good = path.join(work, 'py.zip');

const cli = (args: string[]) => execCli(args, { cwd: work });

/** Every path below `dir` with its bytes or link target: equal snapshots mean an unchanged folder. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[rel] = `dir:${(st.mode & 0o777).toString(8)}`;
        walk(p);
      } else out[rel] = `file:${(st.mode & 0o777).toString(8)}:${readFileSync(p, 'base64')}`;
    }
  };
  walk(dir);
  return out;
}

/** A target folder that already holds something, so "unchanged" is not trivially "still empty". */
function occupiedTarget(name: string): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'notes'), { recursive: true });
  writeFileSync(path.join(dir, 'notes/keep.txt'), 'mine\n');
  return dir;
}

function craft(kind: string): string {
  const out = path.join(work, `bad-${kind}.zip`);
  const r = spawnSync('python3', ['-W', 'ignore', CRAFT, good, out, kind], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`craft-pack.py ${kind}: ${r.stderr}`);
  return out;
}

beforeAll(async () => {
  const r = await cli([
    'pack',
    'build',
    '--family',
    'py-inventory',
    '-o',
    good,
    '--name',
    'py',
    '--pack-version',
    '1.0.0',
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

const BAD: [kind: string, entry: string, reason: RegExp][] = [
  ['absolute', '/tmp/agentguard-evil', /is an absolute path/],
  ['dotdot', 'repos/py-inventory/../../../evil', /climbs out of the pack with '\.\.'/],
  ['duplicate', 'registry.yaml', /appears twice/],
  ['case', 'Registry.yaml', /collides with 'registry\.yaml' once case, Unicode forms/],
  ['long-s', 'regi\u017ftry.yaml', /collides with 'registry\.yaml' once case, Unicode forms/],
  ['dotless-i', 'reg\u0131stry.yaml', /collides with 'registry\.yaml'/],
  ['sharp-s', 'repos/py-inventory/stra\u00dfe.txt', /collides with 'repos\/py-inventory\/strasse\.txt'/],
  ['zero-width', 'regis\u200btry.yaml', /collides with 'registry\.yaml'/],
  ['fullwidth', '\uff52egistry.yaml', /collides with 'registry\.yaml'/],
  [
    'folded-dotdot',
    'repos/py-inventory/\u2025/evil',
    /climbs out of the pack with '\.\.' once case and Unicode forms are folded/,
  ],
  [
    'local-name',
    'registry.yaml',
    /is named 'registrx\.yaml' in its local header but 'registry\.yaml' in the central directory/,
  ],
  ...(['smuggled-head', 'smuggled-middle', 'smuggled-tail'] as const).map(
    (kind): [string, string, RegExp] => [
      kind,
      'repos/py-inventory/evil.py',
      /has a local header at byte \d+ but no entry in the central directory, so a streaming unzipper would unpack/,
    ],
  ),
  [
    'unicode-path',
    'notes-b.txt',
    /has two names: 'notes-a\.txt', and 'notes-b\.txt' in its Unicode path field/,
  ],
  [
    'symlink-out',
    'repos/py-inventory/passwd',
    /is a symlink to '\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd', which leaves its folder/,
  ],
  [
    'through-link',
    'repos/py-inventory/l/x.py',
    /lies inside 'repos\/py-inventory\/l', which is a file or a link/,
  ],
  ['fifo', 'repos/py-inventory/pipe', /is a fifo/],
  ['device', 'repos/py-inventory/disk', /is a block device/],
  ['setuid', 'repos/py-inventory/su', /setuid, setgid or sticky bit/],
  ['lying-size', 'repos/py-inventory/lie.py', /holds more than the 500 bytes it declares/],
  ['lying-size-big', 'repos/py-inventory/lie.py', /holds fewer than the 700 bytes it declares/],
  ['bomb', 'repos/py-inventory/zeros.bin', /inflates \d+ bytes to 41943040 \(ratio over 100\): a zip bomb/],
  ['extra', 'configs/notes.txt', /is in the archive but not in the manifest/],
  ['missing', 'repos/py-inventory/README.md', /is in the manifest but missing from the archive/],
  [
    'tampered',
    'configs/py-inventory/solution/inventory/stock.py',
    /does not match its SHA-256 in the manifest/,
  ],
  ['outside', 'configs/py-inventory/config.yaml', /field 'solution' names \/usr\/share, outside the pack/],
];

describe('a crafted bad pack', () => {
  it('the good pack it is crafted from verifies and imports', async () => {
    const v = await cli(['pack', 'verify', good]);
    expect(v.stdout).toMatch(/valid pack py@1\.0\.0, 11 files/);
    expect(v.code).toBe(0);
    const into = path.join(work, 'good-import');
    const i = await cli(['pack', 'import', good, '--into', into]);
    expect(i.code, i.stderr).toBe(0);
    expect(readFileSync(path.join(into, 'configs/py-inventory/config.yaml'), 'utf8')).toContain(
      'repo: "../../repos/py-inventory"',
    );
  }, 60_000);

  for (const [kind, entry, reason] of BAD)
    it(`${kind}: verify and import refuse it naming '${entry}', and the target is unchanged`, async () => {
      const bad = craft(kind);
      const v = await cli(['pack', 'verify', bad]);
      expect(v.code).toBe(2);
      const line = v.stderr.split('\n').find((l) => l.includes(`entry '${entry}'`));
      expect(line, v.stderr).toMatch(reason);
      expect(v.stdout).toBe('');
      const target = occupiedTarget(`target-${kind}`);
      const before = snapshot(target);
      const i = await cli([
        'pack',
        'import',
        bad,
        '--into',
        target,
        '--registry-out',
        path.join(target, 'r.yaml'),
      ]);
      expect(i.code).toBe(2);
      expect(i.stderr).toContain(`entry '${entry}'`);
      expect(i.stderr).toMatch(/nothing was written/);
      expect(snapshot(target)).toEqual(before);
    }, 60_000);

  it('something that is not a zip archive at all', async () => {
    const v = await cli(['pack', 'verify', craft('not-zip')]);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/is not a readable zip archive/);
  });

  it('bytes between two entries that belong to no entry: refused, nothing imported', async () => {
    const bad = craft('stray-bytes');
    const v = await cli(['pack', 'verify', bad]);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/has 64 bytes at byte \d+ that belong to no entry/);
    const i = await cli(['pack', 'import', bad, '--into', path.join(work, 'stray')]);
    expect(i.code).toBe(2);
    expect(i.stderr).toMatch(/nothing was written/);
  }, 60_000);
});

describe('importing', () => {
  it('never overwrites without --force, never writes through a link, and replaces with --force', async () => {
    const into = occupiedTarget('import-force');
    writeFileSync(path.join(into, 'registry.yaml'), 'my own registry\n');
    const before = snapshot(into);
    const refused = await cli(['pack', 'import', good, '--into', into]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/1 file already exists \(.*registry\.yaml\).*--force/);
    expect(snapshot(into)).toEqual(before);

    const forced = await cli(['pack', 'import', good, '--into', into, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(path.join(into, 'registry.yaml'), 'utf8')).toMatch(
      /^# The registry of an agentguard benchmark pack/,
    );
    expect(readFileSync(path.join(into, 'notes/keep.txt'), 'utf8')).toBe('mine\n');

    const linked = occupiedTarget('import-link');
    const outside = path.join(work, 'outside-target');
    mkdirSync(outside);
    symlinkSync(outside, path.join(linked, 'repos'));
    const beforeLinked = snapshot(linked);
    const r = await cli(['pack', 'import', good, '--into', linked, '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/repos is a symlink where the pack needs a folder/);
    expect(snapshot(linked)).toEqual(beforeLinked);
    expect(readdirSync(outside)).toEqual([]);

    const clash = await cli([
      'pack',
      'import',
      good,
      '--into',
      path.join(work, 'clash'),
      '--registry-out',
      path.join(work, 'clash/registry.yaml'),
    ]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/clash\/registry\.yaml is a file of the pack itself/);
  }, 60_000);

  it('writes a registry and a suite file that resolve from where they are written', async () => {
    const into = path.join(work, 'with-outputs/imported');
    const reg = path.join(work, 'with-outputs/registry.yaml');
    const suite = path.join(work, 'suite.yaml');
    const r = await cli([
      'pack',
      'import',
      good,
      '--into',
      into,
      '--registry-out',
      reg,
      '--suite-out',
      suite,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const v = await cli(['registry', 'validate', '--registry', reg]);
    expect(v.stdout).toMatch(/1 families, 2 configs, 1 contracts: valid/);
    expect(readFileSync(suite, 'utf8')).toContain('with-outputs/imported/configs/py-inventory/config.yaml');
    const outside = await cli([
      'pack',
      'import',
      good,
      '--into',
      path.join(work, 'x'),
      '--registry-out',
      path.join(work, 'elsewhere/r.yaml'),
    ]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/a registry's configs must lie in its own folder/);
  }, 60_000);
});

describe('signing and trust', () => {
  const keys = path.join(work, 'keys');
  const policy = path.join(work, 'trust.yaml');
  const sig = `${good}.sig`;

  beforeAll(async () => {
    for (const name of ['alice', 'bob'])
      expect((await cli(['keys', 'generate', '--out', keys, '--name', name])).code).toBe(0);
    expect((await cli(['keys', 'generate', '--out', keys, '--name', 'ci', '--hmac'])).code).toBe(0);
    writeFileSync(
      policy,
      'schema: 1\nrequired_signatures: 2\nkeys:\n  - public_key: keys/alice.pub\n    name: alice\n  - public_key: keys/bob.pub\n    name: bob\n  - id: ci-shared\n    hmac_key: keys/ci.hmac\n',
    );
  }, 60_000);

  it('refuses a pack below the policy naming the missing signatures, and accepts it once enough trusted keys signed', async () => {
    const none = await cli(['pack', 'verify', good, '--trust', policy]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /has 0 valid signatures .* requires 2; missing: 2 more from alice \(ed25519:[0-9a-f]{16}\), bob \(ed25519:[0-9a-f]{16}\), ci-shared/,
    );

    const s1 = await cli(['pack', 'sign', good, '--key', path.join(keys, 'alice.key')]);
    expect(s1.code, s1.stderr).toBe(0);
    const one = await cli(['pack', 'verify', good, '--trust', policy]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(
      /has 1 valid signature .* requires 2; missing: 1 more from bob \(ed25519:[0-9a-f]{16}\), ci-shared/,
    );

    const target = occupiedTarget('trust-target');
    const before = snapshot(target);
    const refused = await cli(['pack', 'import', good, '--into', target, '--trust', policy]);
    expect(refused.code).toBe(2);
    expect(snapshot(target)).toEqual(before);

    const s2 = await cli([
      'pack',
      'sign',
      good,
      '--key',
      path.join(keys, 'ci.hmac'),
      '--hmac',
      '--key-id',
      'ci-shared',
    ]);
    expect(s2.code, s2.stderr).toBe(0);
    const two = await cli(['pack', 'verify', good, '--trust', policy, '--json']);
    expect(two.code, two.stderr).toBe(0);
    expect(JSON.parse(two.stdout).trust.valid).toEqual([
      expect.stringMatching(/^alice \(ed25519:/),
      'ci-shared',
    ]);
    const imported = await cli([
      'pack',
      'import',
      good,
      '--into',
      path.join(work, 'trusted'),
      '--trust',
      policy,
    ]);
    expect(imported.code, imported.stderr).toBe(0);
  }, 120_000);

  it('a signature file that is a fifo, or a link to /dev/zero, beside the pack: refused at once, not waited on or read forever', async () => {
    for (const [name, make] of [
      ['fifo', (f: string) => spawnSync('mkfifo', [f])],
      ['zero', (f: string) => symlinkSync('/dev/zero', f)],
    ] as const) {
      const copy = path.join(work, `sig-${name}.zip`);
      writeFileSync(copy, readFileSync(good));
      make(`${copy}.sig`);
      const started = Date.now();
      const v = await cli(['pack', 'verify', copy, '--trust', policy]);
      expect(v.code).toBe(2);
      expect(v.stderr).toMatch(/\.sig: is not a readable signature file \(is a (FIFO|character device)/);
      expect(Date.now() - started).toBeLessThan(30_000);
    }
  }, 90_000);

  it('does not count a signature by an untrusted key, a forged one, or one over another digest', async () => {
    const mallory = await cli(['keys', 'generate', '--out', path.join(work, 'mkeys'), '--name', 'mallory']);
    expect(mallory.code).toBe(0);
    const file = JSON.parse(readFileSync(sig, 'utf8'));
    const forged = path.join(work, 'forged.sig');
    const hmac = file.signatures.find((s: { key_id: string }) => s.key_id === 'ci-shared');
    hmac.signature = Buffer.from('x'.repeat(32)).toString('base64');
    writeFileSync(forged, JSON.stringify(file));
    const r = await cli(['pack', 'verify', good, '--trust', policy, '--signatures', forged]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /not counted: key ci-shared: the signature does not match the pack's root digest/,
    );

    const untrusted = path.join(work, 'untrusted.sig');
    const s = await cli([
      'pack',
      'sign',
      good,
      '--key',
      path.join(work, 'mkeys/mallory.key'),
      '--out',
      untrusted,
    ]);
    expect(s.code, s.stderr).toBe(0);
    const u = await cli(['pack', 'verify', good, '--trust', policy, '--signatures', untrusted]);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/not counted: key ed25519:[0-9a-f]{16} is not in the trust policy/);

    // The tampered pack has another root digest: the good pack's signatures do not carry over.
    const tampered = craft('extra');
    const t = await cli(['pack', 'verify', tampered, '--trust', policy, '--signatures', sig]);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/entry 'configs\/notes\.txt'/);
  }, 60_000);
});

describe('a pack index', () => {
  const dir = path.join(work, 'index');
  const index = path.join(dir, 'index.yaml');
  const sha = (f: string) => spawnSync('sha256sum', [f], { encoding: 'utf8' }).stdout.split(' ')[0] as string;

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    for (const v of ['1.0.0', '1.1.0']) {
      const r = await cli([
        'pack',
        'build',
        '--family',
        'py-inventory',
        '-o',
        path.join(dir, `py-${v}.zip`),
        '--name',
        'py',
        '--pack-version',
        v,
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    writeFileSync(
      index,
      [
        'schema: 1',
        'packs:',
        `  - { name: py, version: 1.0.0, path: py-1.0.0.zip, sha256: ${sha(path.join(dir, 'py-1.0.0.zip'))} }`,
        `  - { name: py, version: 1.1.0, path: py-1.1.0.zip, sha256: ${sha(path.join(dir, 'py-1.1.0.zip'))} }`,
        '  - { name: py, version: 2.0.0, url: "https://packs.example.test/py-2.0.0.zip" }',
        '',
      ].join('\n'),
    );
  }, 120_000);

  it('verifies every local entry and lists URL entries as not fetched', async () => {
    const r = await cli(['index', 'verify', index, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      JSON.parse(r.stdout).entries.map((e: { version: string; status: string }) => [e.version, e.status]),
    ).toEqual([
      ['1.0.0', 'verified'],
      ['1.1.0', 'verified'],
      ['2.0.0', 'remote-only'],
    ]);
  }, 60_000);

  it('reads the same catalogue written as JSON', async () => {
    const json = path.join(dir, 'index.json');
    writeFileSync(
      json,
      JSON.stringify({
        schema: 1,
        packs: [
          { name: 'py', version: '1.0.0', path: 'py-1.0.0.zip', sha256: sha(path.join(dir, 'py-1.0.0.zip')) },
        ],
      }),
    );
    const r = await cli(['index', 'verify', json]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/py\s+1\.0\.0\s+verified/);
  }, 60_000);

  it('installs the highest local version in a range, and refuses a URL-only one', async () => {
    const into = path.join(work, 'from-index');
    const r = await cli(['index', 'install', index, 'py@^1.0.0', '--into', into]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported py@1\.1\.0/);
    expect(JSON.parse(readFileSync(path.join(into, 'agentguard-pack.json'), 'utf8')).version).toBe('1.1.0');
    const remote = await cli(['index', 'install', index, 'py@2', '--into', path.join(work, 'remote')]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(
      /py@2\.0\.0 is listed .* only with a URL; agentguard does not download packs/,
    );
  }, 60_000);

  it('refuses an archive whose digest or declared version disagrees with the index', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      `schema: 1\npacks:\n  - { name: py, version: 1.0.0, path: py-1.0.0.zip, sha256: "${'0'.repeat(64)}" }\n  - { name: py, version: 1.2.0, path: py-1.1.0.zip, sha256: ${sha(path.join(dir, 'py-1.1.0.zip'))} }\n`,
    );
    const r = await cli(['index', 'verify', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/py@1\.0\.0: .*py-1\.0\.0\.zip has SHA-256 [0-9a-f]{64}, the index says 0{64}/);
    expect(r.stderr).toMatch(
      /py@1\.2\.0: entry 'agentguard-pack\.json': declares py@1\.1\.0, not py@1\.2\.0/,
    );
    const target = occupiedTarget('index-target');
    const before = snapshot(target);
    const i = await cli(['index', 'install', bad, 'py@1.0.0', '--into', target]);
    expect(i.code).toBe(2);
    expect(snapshot(target)).toEqual(before);
  }, 60_000);
});

describe('usage and policy mistakes', () => {
  it('each gets one sentence naming the file or option and the fix, exit 2', async () => {
    const missing = await cli(['pack', 'verify', 'nope.zip']);
    expect(missing.stderr).toMatch(/nope\.zip does not exist or is not a file\. Fix:/);
    expect(missing.code).toBe(2);
    const noOut = await cli(['pack', 'build']);
    expect(noOut.stderr).toMatch(/'pack build' needs -o PACK\.zip/);
    expect(noOut.code).toBe(2);
    const noDir = await cli(['pack', 'build', '-o', 'no/such/dir/p.zip']);
    expect(noDir.stderr).toMatch(/the folder .*no\/such\/dir does not exist/);
    const noId = await cli(['pack', 'sign', good, '--key', 'k.hmac', '--hmac']);
    expect(noId.stderr).toMatch(/needs --key-id ID/);
    expect(noId.code).toBe(2);
    const notKey = await cli(['pack', 'sign', good, '--key', good]);
    expect(notKey.stderr).toMatch(/is not a PEM private key/);
    expect(notKey.code).toBe(2);

    const policy = path.join(work, 'bad-trust.yaml');
    writeFileSync(policy, 'schema: 1\nrequired_signatures: 3\nkeys:\n  - hmac_key: keys/ci.hmac\n');
    const noKeyId = await cli(['pack', 'verify', good, '--trust', policy]);
    expect(noKeyId.stderr).toMatch(/bad-trust\.yaml: field 'keys\[0\]': an hmac_key needs an id/);
    expect(noKeyId.code).toBe(2);
    writeFileSync(
      policy,
      'schema: 1\nrequired_signatures: 3\nkeys:\n  - id: ci\n    hmac_key: missing.hmac\n',
    );
    const tooMany = await cli(['pack', 'verify', good, '--trust', policy]);
    expect(tooMany.stderr).toMatch(/field 'keys\[0\]': .*missing\.hmac: cannot read the key file/);
    expect(tooMany.code).toBe(2);
  }, 60_000);
});
