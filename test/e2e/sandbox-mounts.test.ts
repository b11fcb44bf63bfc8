import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS, execCli, tempDir } from './exec-cli.js';

const isRoot = process.getuid?.() === 0;
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const canSandbox = isRoot && has('bwrap') && has('setpriv') && has('strace');
if (!canSandbox)
  console.warn('sandbox-mounts e2e tests skipped: they need root, bwrap, setpriv and strace (CI has them)');

const work = tempDir('ag-mounts-');
// Under /var and /srv: folders the sandbox shows only when a config names them.
const absRo = `/var/tmp/agentguard-e2e-mount-ro-${process.pid}`;
const absRw = `/srv/agentguard-e2e-mount-rw-${process.pid}`;
afterAll(() => {
  for (const d of [work, absRo, absRw]) rmSync(d, { recursive: true, force: true });
});

/** A task folder with its config; the agent is a shell script given inline. */
function task(rel: string, script: string, extra: string[] = []): string {
  const dir = path.join(work, rel);
  mkdirSync(path.join(dir, 'repo'), { recursive: true });
  writeFileSync(path.join(dir, 'repo/README.md'), 'task\n');
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      `name: ${path.basename(rel)}`,
      'task: {prompt: do the task}',
      'repo: repo',
      'test_command: [sh, -c, "true"]',
      `agent_command: [sh, -c, ${JSON.stringify(script)}, "{config_dir}"]`,
      ...extra,
    ].join('\n'),
  );
  return dir;
}

async function run(dir: string, args: string[] = []) {
  const r = await execCli(
    ['run', 'config.yaml', '--sandbox', 'bwrap', '--tracer', 'strace', '--json', ...args],
    {
      cwd: dir,
    },
  );
  const report = r.stdout.startsWith('{') ? JSON.parse(r.stdout) : null;
  const out = (name: string) => readFileSync(path.join(report.run_dir, 'repo', name), 'utf8').trim();
  return { ...r, report, out };
}

describe.skipIf(!canSandbox)('sandbox.mounts: what a config names is shown, and only that', () => {
  it('shows a relative, an absolute and a writable mount at their own paths, and records them', async () => {
    mkdirSync(path.join(work, 'mounts/shared'), { recursive: true });
    writeFileSync(path.join(work, 'mounts/shared/a.txt'), 'relative-content\n');
    mkdirSync(absRo, { recursive: true });
    writeFileSync(path.join(absRo, 'b.txt'), 'absolute-content\n');
    mkdirSync(absRw, { recursive: true });
    chmodSync(absRw, 0o777);
    const script = [
      'cat "$0/../shared/a.txt" > rel.txt',
      `cat ${absRo}/b.txt > abs.txt`,
      `echo written > ${absRw}/out.txt; echo $? > rw.rc`,
      `echo no > ${absRo}/new.txt 2>/dev/null; echo $? > ro.rc`,
      // Beside a named folder nothing else of /var or /srv is there.
      'ls -A /var/tmp > var.txt 2>&1; ls -A /srv > srv.txt 2>&1',
      'echo changed >> README.md',
    ].join('; ');
    const dir = task('mounts/case', script, [
      `sandbox: { mounts: [../shared, ${absRo}, { path: ${absRw}, writable: true }] }`,
    ]);
    const r = await run(dir);
    expect(r.report, r.stderr).not.toBeNull();
    expect(r.out('rel.txt')).toBe('relative-content');
    expect(r.out('abs.txt')).toBe('absolute-content');
    expect(r.out('rw.rc')).toBe('0');
    expect(readFileSync(path.join(absRw, 'out.txt'), 'utf8')).toBe('written\n');
    expect(r.out('ro.rc')).not.toBe('0');
    expect(r.out('var.txt').split('\n')).toEqual([path.basename(absRo)]);
    expect(r.out('srv.txt').split('\n')).toEqual([path.basename(absRw)]);
    const facts = r.report.observation.sandbox.facts;
    expect(facts.shown).toContain(path.join(work, 'mounts/shared'));
    expect(facts.shown).toContain(absRo);
    expect(facts.shown).toMatch(new RegExp(`writable for the run: ${absRw}`));
    expect(JSON.parse(readFileSync(path.join(r.report.run_dir, 'config.json'), 'utf8')).mounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: absRw, writable: true, field: 'sandbox.mounts[2]' }),
      ]),
    );
  }, 180_000);

  it('stops before the agent starts when the run user could not read a shown folder: no root fallback', async () => {
    const closed = path.join(work, 'closed');
    mkdirSync(closed, { recursive: true });
    chmodSync(closed, 0o700);
    const dir = task('closed-case', 'echo ran > ran.txt', [`sandbox: { mounts: [${closed}] }`]);
    const r = await run(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(closed);
    expect(r.stderr).toContain(`chmod o+rx ${closed}`);
    expect(r.stderr).toContain('sandbox.mounts[0]');
    expect(r.stdout).toBe('');
  }, 120_000);
});

describe.skipIf(!canSandbox)(
  'a config from a pack shows nothing outside the pack, and nothing writable',
  () => {
    // Unpacked by hand: the manifest at its root marks every config in it as the pack's.
    const pack = path.join(work, 'pack');
    mkdirSync(pack, { recursive: true });
    writeFileSync(path.join(pack, 'agentguard-pack.json'), '{}\n');
    const outside = path.join(work, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(outside, 'agent.sh'), 'true\n');
    mkdirSync(path.join(pack, 'data'), { recursive: true });

    const cases: [string, string[], string][] = [
      ['absolute', [`sandbox: { mounts: [${outside}] }`], 'sandbox.mounts[0]'],
      ['relative', ['sandbox: { mounts: [../../outside] }'], 'sandbox.mounts[0]'],
      ['writable', ['sandbox: { mounts: [{ path: ../data, writable: true }] }'], 'sandbox.mounts[0]'],
      ['toolchain', [`toolchains: [${outside}]`], 'toolchains[0]'],
    ];
    for (const [name, extra, field] of cases) {
      it(`refuses a ${name} mount below the floor, with the field and the operator's flag`, async () => {
        const dir = task(`pack/${name}`, 'echo ran > ran.txt', extra);
        const r = await run(dir);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(field);
        expect(r.stderr).toContain('--allow-below-floor');
      }, 120_000);
    }

    it('refuses a {config_dir} argument that leaves the pack, and runs it when the operator allows it', async () => {
      const dir = path.join(pack, 'escape');
      task('pack/escape', 'true');
      writeFileSync(
        path.join(dir, 'config.yaml'),
        [
          'name: escape',
          'task: {prompt: do the task}',
          'repo: repo',
          'test_command: [sh, -c, "true"]',
          'agent_command: [sh, -c, \'. "$1"; echo changed >> README.md\', "{config_dir}", "{config_dir}/../../outside/agent.sh"]',
        ].join('\n'),
      );
      const refused = await run(dir);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('agent_command[4]');
      const allowed = await run(dir, ['--allow-below-floor']);
      expect(allowed.report, allowed.stderr).not.toBeNull();
      expect(allowed.report.observation.sandbox.facts.shown).toContain(path.join(outside, 'agent.sh'));
    }, 180_000);
  },
);

describe.skipIf(!canSandbox)('the task solution and grader files are withheld from the config folder', () => {
  const layout = (name: string, extra: string[]) => {
    const script = [
      'cat "$0/solution/fix.txt" > sol.txt 2>&1; echo $? > sol.rc',
      'ls -A "$0/solution" > sol-ls.txt 2>&1',
      'cat "$0/repo/hidden/expected.txt" > hidden.txt 2>&1',
      'grep -r answer "$0" > grep.txt 2>&1',
      'echo changed >> README.md',
    ].join('; ');
    const dir = task(`solution/${name}`, script, ['solution: solution', 'grader_paths: [hidden]', ...extra]);
    mkdirSync(path.join(dir, 'solution'), { recursive: true });
    writeFileSync(path.join(dir, 'solution/fix.txt'), 'the-answer-itself\n');
    mkdirSync(path.join(dir, 'repo/hidden'), { recursive: true });
    writeFileSync(path.join(dir, 'repo/hidden/expected.txt'), 'expected-answer\n');
    return dir;
  };

  it('a real agent that reads {config_dir}/solution finds it empty, and the grader file too', async () => {
    const r = await run(layout('hidden', []));
    expect(r.report, r.stderr).not.toBeNull();
    expect(r.out('sol.txt')).not.toContain('the-answer-itself');
    expect(r.out('sol.rc')).not.toBe('0');
    expect(r.out('sol-ls.txt')).toBe('');
    expect(r.out('hidden.txt')).not.toContain('expected-answer');
    expect(r.out('grep.txt')).not.toMatch(/the-answer-itself|expected-answer/);
    expect(r.report.observation.sandbox.facts.solution).toBe('withheld from the agent');
    expect(r.report.observation.sandbox.facts.hidden).toMatch(/solution \(empty folder\)/);
  }, 180_000);

  it("agentguard's own package shows what runs from it, not its benchmarks and their solutions", async () => {
    const pkg = path.resolve(BENCHMARKS, '..');
    const dir = task(
      'package-view',
      `ls ${pkg}/benchmarks > bench.txt 2>&1; echo $? > bench.rc; ` +
        `cat ${pkg}/benchmarks/js-slugify/solution/src/slugify.js > sibling.txt 2>&1; ` +
        `test -r ${pkg}/package.json; echo $? > pkg.rc; test -d ${pkg}/dist; echo $? > dist.rc`,
    );
    const r = await run(dir);
    expect(r.report, r.stderr).not.toBeNull();
    expect(r.out('bench.rc')).not.toBe('0');
    expect(r.out('sibling.txt')).toMatch(/No such file or directory/);
    expect(r.out('pkg.rc')).toBe('0');
    expect(r.out('dist.rc')).toBe('0');
  }, 180_000);

  it('a config that names its solution shows it, and the observation says so', async () => {
    const r = await run(layout('named', ['sandbox: { mounts: [solution] }']));
    expect(r.report, r.stderr).not.toBeNull();
    expect(r.out('sol.txt')).toBe('the-answer-itself');
    expect(r.out('hidden.txt')).not.toContain('expected-answer');
    expect(r.report.observation.sandbox.facts.solution).toMatch(/^shown to the agent/);
  }, 180_000);
});
