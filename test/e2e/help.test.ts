import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../../src/cli/help-groups.js';
import { COMMANDS } from '../../src/cli/registry/index.js';
import { execCli, ROOT, tempDir } from './exec-cli.js';

const work = tempDir('ag-help-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const within100 = (text: string) => {
  for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
};

describe('agentguard --help', () => {
  it('groups every command by what it is for, within 100 columns', async () => {
    const r = await execCli(['--help'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const titles = [...r.stdout.matchAll(/^([A-Z][A-Za-z ]+):$/gm)].map((m) => m[1]);
    expect(titles).toEqual(['Usage', ...COMMAND_GROUPS.map((g) => g.title), 'Options']);
    // Every command the CLI has is in a group: nothing falls through to "Other".
    expect(r.stdout).not.toMatch(/^Other:$/m);
    for (const name of COMMAND_GROUPS.flatMap((g) => g.commands))
      expect(r.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    within100(r.stdout);
    expect(r.stdout).toContain('Each command has its own help: agentguard <command> --help');
    const help = await execCli(['help'], { cwd: work });
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(r.stdout);
  });

  it("gives each command's help its description, actions and examples; `help CMD` is the same", async () => {
    const specs = COMMANDS.filter((c) => !c.ownsArgv);
    const helps = await Promise.all(
      specs.map(async (spec) => ({
        r: await execCli([spec.name, '--help'], { cwd: work }),
        viaHelp: await execCli(['help', spec.name], { cwd: work }),
      })),
    );
    for (const [i, spec] of specs.entries()) {
      const { r, viaHelp } = helps[i] as (typeof helps)[number];
      expect(r.code, `${spec.name}: ${r.stderr}`).toBe(0);
      expect(r.stdout, spec.name).toContain(`$ agentguard ${spec.usage}`);
      expect(r.stdout.replace(/\s+/g, ' '), spec.name).toContain(spec.description);
      for (const example of spec.examples) expect(r.stdout, spec.name).toContain(`  $ ${example}`);
      for (const action of Object.keys(spec.actions ?? {}))
        expect(r.stdout, spec.name).toMatch(new RegExp(`^Actions:[^]*^  ${action} `, 'm'));
      within100(r.stdout);
      expect(viaHelp.stdout, spec.name).toBe(r.stdout);
    }
  }, 300_000);

  it('builds help that needs a heavy module for that command only (run: the default sandbox)', async () => {
    const r = await execCli(['run', '--help'], { cwd: work });
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/--sandbox <kind> [^-]*default: \w+ where it works/);
    const schema = await execCli(['--output-dir', 'x', 'schema', '-h'], { cwd: work });
    expect(schema.stdout).toMatch(/Kinds: config, /);
  });

  it('says "did you mean" for a mistyped command, after `help` too, and for a mistyped action', async () => {
    const help = await execCli(['help', 'reprots'], { cwd: work });
    expect(help.code).toBe(2);
    expect(help.stderr).toContain("'reprots' is not a command. Did you mean 'reports'?");
    const action = await execCli(['trace', 'verfy', 'x'], { cwd: work });
    expect(action.code).toBe(2);
    expect(action.stderr).toContain("'trace verfy x' is not a command. Did you mean 'trace verify'?");
    // An action is a name the command lists, never a property every object has.
    const proto = await execCli(['reports', 'constructor'], { cwd: work });
    expect(proto.code).toBe(2);
    expect(proto.stderr).toContain("'reports constructor' is not a command.");
    // model-server reads its own flags: after another flag it is refused, never silently a no-op.
    const late = await execCli(['--output-dir', 'x', 'model-server', '--script', 'f.yaml'], { cwd: work });
    expect(late.code).toBe(2);
    expect(late.stderr).toContain("'model-server' reads its own flags, so it must come first.");
    expect((await execCli(['help', '--help'], { cwd: work })).code).toBe(0);
  });
});

describe('what the CLI loads to start', () => {
  // A loader hook that prints every module the CLI loads, to a file per process.
  const hook = path.join(work, 'hooks.mjs');
  const register = path.join(work, 'register.mjs');
  writeFileSync(
    hook,
    "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (!url.startsWith('node:')) appendFileSync(process.env.AG_LOADED, url + '\\n');\n  return next(url, context);\n}\n",
  );
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hook}`)});\n`,
  );

  async function loaded(args: string[]): Promise<string[]> {
    const list = path.join(work, `loaded-${args.join('_').replace(/\W/g, '')}.txt`);
    writeFileSync(list, '');
    const r = await execCli(args, {
      cwd: work,
      env: { NODE_OPTIONS: `--import ${register}`, AG_LOADED: list },
    });
    expect(r.code, r.stderr).toBe(0);
    return readFileSync(list, 'utf8').split('\n').filter(Boolean).flatMap(modulesOf);
  }

  /**
   * The modules a loaded file holds: the bundled CLI's entry and chunks (scripts/bundle-cli.mjs)
   * name theirs in their source maps; any other file is its own module.
   */
  function modulesOf(url: string): string[] {
    if (!/\/dist\/cli\/(main|chunk-[^/]*)\.js$/.test(url)) return [url];
    const file = fileURLToPath(url);
    if (!existsSync(`${file}.map`)) return [url];
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources.map((s) => pathToFileURL(path.resolve(path.dirname(file), s)).href);
  }

  it('loads no command module and no heavy dependency for --version and --help', async () => {
    for (const args of [['--version'], ['--help'], ['reports', '--help']]) {
      const urls = await loaded(args);
      expect(urls.length, args.join(' ')).toBeGreaterThan(3);
      const heavy = urls.filter((u) =>
        /\/node_modules\/(zod|better-sqlite3|bullmq|ioredis|yaml|playwright)\/|\/dist\/cli\/commands\//.test(
          u,
        ),
      );
      expect(heavy, args.join(' ')).toEqual([]);
    }
  });

  it("loads a command's module when it runs", async () => {
    const urls = await loaded(['checks', '--json']);
    expect(urls.some((u) => u.endsWith('/dist/cli/commands/checks.js'))).toBe(true);
    expect(urls.some((u) => u.endsWith('/dist/cli/commands/run.js'))).toBe(false);
  });

  it('loads only the tracer a run uses', async () => {
    const task = path.join(ROOT, 'benchmarks/js-slugify/config.yaml');
    const run = (tracer: string) =>
      loaded([
        'run',
        task,
        '--agent',
        'mock-solve',
        '--tracer',
        tracer,
        '--output-dir',
        path.join(work, tracer),
      ]);
    const ebpf = (u: string) => u.endsWith('/dist/observe/ebpf/engine.js');
    const strace = (u: string) => u.endsWith('/dist/observe/strace/strace-tracer.js');
    const off = await run('off');
    expect(off.some((u) => u.endsWith('/dist/pipeline/run-task.js'))).toBe(true);
    expect(off.filter((u) => ebpf(u) || strace(u))).toEqual([]);
    const traced = await run('strace');
    expect(traced.some(strace)).toBe(true);
    expect(traced.filter(ebpf)).toEqual([]);
  });
});
