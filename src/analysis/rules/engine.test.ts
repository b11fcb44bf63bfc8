import { describe, expect, it } from 'vitest';
import { evaluateRules } from './evaluate.js';
import { createMatcher } from './matcher.js';
import { buildRuleSet } from './ruleset.js';
import { CTX, Trace, WS } from './test-events.js';
import type { RuleContext, SecurityOptions } from './types.js';

/** A rule set of one rule (plus optional lists/macros) over the given condition. */
function ruleset(condition: string, extra = '', security: Partial<SecurityOptions> = {}) {
  const text = `${extra}\nrules:\n  - id: r\n    description: test rule\n    class: secrets\n    severity: error\n    condition: ${JSON.stringify(condition)}\n    output: '{proc.name} {target}'\n`;
  return buildRuleSet([{ file: 'test.yaml', text }], { security });
}

function fires(condition: string, t: Trace, extra = '', ctx: RuleContext = CTX): boolean {
  return evaluateRules({ syscalls: t.events, network: t.records }, ruleset(condition, extra), ctx).length > 0;
}

const reading = (path: string, argv = ['cat', path]) =>
  new Trace().exec(2, 1, '/usr/bin/cat', argv).open(2, path);

describe('operators', () => {
  const cases: [string, string, boolean][] = [
    ['=', 'target = /etc/hosts', true],
    ['= (other value)', 'target = /etc/passwd', false],
    ['!=', 'kind = open and target != /etc/passwd', true],
    ['!= (same value)', 'kind = open and target != /etc/hosts', false],
    ['in', 'target in (/etc/passwd, /etc/hosts)', true],
    ['in (no match)', 'target in (/etc/passwd, /etc/group)', false],
    ['glob *', "target glob '/etc/h*'", true],
    ['glob does not cross /', "target glob '/*/hosts/x'", false],
    ['glob **', 'target glob (/etc/**)', true],
    ['startswith', 'target startswith /etc/', true],
    ['startswith (no)', 'target startswith /usr/', false],
    ['endswith', 'target endswith hosts', true],
    ['contains', 'target contains tc/ho', true],
    ['contains is case-sensitive', 'target contains HOSTS', false],
    ['icontains', 'target icontains HOSTS', true],
    ['< on numbers', 'kind = open and result < 4', true],
    ['<=', 'kind = open and result <= 3', true],
    ['>', 'kind = open and result > 3', false],
    ['>=', 'kind = open and result >= 3', true],
    ['number in', 'kind = open and result in (1, 3)', true],
    ['exists', 'kind = open and access exists', true],
    ['exists on a missing field', 'kind = open and program.writer exists', false],
    ['bare boolean field', 'kind = open and failed', false],
    ['not boolean field', 'kind = open and not failed', true],
    ['and / or / not with parentheses', 'kind = open and (target = /x or not (access = write))', true],
    ['argv joined', "kind = open and argv = 'cat -n /etc/hosts'", true],
    ['argv[N]', 'kind = open and argv[1] = -n', true],
    ['args (any item)', 'kind = open and args = -n', true],
    ['args (no item)', 'kind = open and args = -x', false],
    ['path.name', 'kind = open and path.name = hosts', true],
    ['proc.name', 'kind = open and proc.name = cat', true],
    ['ancestors.exe', 'kind = open and ancestors.exe = /usr/bin/sh', true],
    ['ancestors.name (no match)', 'kind = open and ancestors.name = bash', false],
    ['not on a set field means none', 'kind = open and not ancestors.exe = /usr/bin/sh', false],
  ];
  for (const [name, cond, want] of cases) {
    it(`${name}: ${cond}`, () => {
      expect(fires(`kind = open and (${cond})`, reading('/etc/hosts', ['cat', '-n', '/etc/hosts']))).toBe(
        want,
      );
    });
  }

  it('a test of a field the event lacks is false, and its negation true', () => {
    const t = reading('/etc/hosts');
    expect(fires('addr.port = 1', t)).toBe(false);
    expect(fires('not addr.port = 1', t)).toBe(true);
    expect(fires('addr.ip != 1.1.1.1', t)).toBe(false);
  });

  it('hostmatch understands exact names, *.domain, ports, case and a trailing dot', () => {
    const net = (host: string, port = 443) => {
      const t = new Trace();
      t.record({ host, port });
      return t;
    };
    const cond = "kind = net and dest hostmatch (example.com, '*.pkg.dev', 'api.x.io:8443')";
    expect(fires(cond, net('Example.COM.'))).toBe(true);
    expect(fires(cond, net('a.b.pkg.dev'))).toBe(true);
    expect(fires(cond, net('pkg.dev'))).toBe(false);
    expect(fires(cond, net('evilpkg.dev'))).toBe(false);
    expect(fires(cond, net('api.x.io', 8443))).toBe(true);
    expect(fires(cond, net('api.x.io', 443))).toBe(false);
    expect(fires("kind = net and host hostmatch ('api.x.io:8443')", net('api.x.io', 53))).toBe(true);
  });

  it('connect events expose ip, port, family and dest', () => {
    const t = new Trace()
      .exec(2, 1, '/usr/bin/curl', ['curl'])
      .connect(2, { family: 'inet6', ip: '2001:db8::1', port: 443 }, -101);
    expect(fires("dest = '[2001:db8::1]:443' and addr.family = inet6 and failed and result = -101", t)).toBe(
      true,
    );
  });
});

describe('lists, macros, placeholders and exceptions', () => {
  it('expands lists by name, inside parentheses or alone, and appended items', () => {
    const files = [
      {
        file: 'a.yaml',
        text: 'lists:\n  etc_files: [/etc/passwd]\nmacros:\n  reads_etc: kind = open and target in (etc_files)\n',
      },
      { file: 'b.yaml', text: 'lists:\n  etc_files: {append: [/etc/hosts]}\n' },
      {
        file: 'c.yaml',
        text: 'rules:\n  - {id: r, description: d, class: secrets, severity: error, condition: reads_etc and target glob etc_files}\n',
      },
    ];
    const rs = buildRuleSet(files);
    expect(evaluateRules({ syscalls: reading('/etc/hosts').events }, rs, CTX).map((a) => a.rule)).toEqual([
      'r',
    ]);
    expect(evaluateRules({ syscalls: reading('/etc/group').events }, rs, CTX)).toEqual([]);
  });

  it('nests macros', () => {
    const extra = 'macros:\n  is_open: kind = open\n  etc_open: is_open and target startswith /etc/\n';
    expect(fires('etc_open and not failed', reading('/etc/hosts'), extra)).toBe(true);
    expect(fires('etc_open', reading('/usr/x'), extra)).toBe(false);
  });

  it('fills $HOME, $WORKSPACE and list placeholders from the run context', () => {
    const t = new Trace().open(1, `${WS}/a`, 'create').open(1, '/root/.aws/credentials');
    expect(fires('kind = open and target glob ($WORKSPACE/**) and access = create', t)).toBe(true);
    expect(fires("kind = open and target glob '$HOME/.aws/*' and access = read", t)).toBe(true);
    expect(fires('kind = open and target in ($CANARIES)', t)).toBe(true);
    const other = { ...CTX, canaries: [], home: '/home/u', workspace: '/w' };
    expect(fires('kind = open and target in ($CANARIES)', t, '', other)).toBe(false);
    expect(fires('kind = open and target glob ($WORKSPACE/**)', t, '', other)).toBe(false);
  });

  it('an empty list placeholder matches nothing, even as a glob template', () => {
    const t = new Trace().open(1, '/root/.codex/x', 'create');
    expect(fires('kind = open and target glob ($STATE_DIRS/**)', t)).toBe(true);
    expect(fires('kind = open and target glob ($STATE_DIRS/**)', t, '', { ...CTX, stateDirs: [] })).toBe(
      false,
    );
  });

  it('exceptions suppress, and config allow entries add exceptions by condition, path and host', () => {
    const text =
      'rules:\n  - id: w\n    description: d\n    class: integrity\n    severity: error\n    condition: kind = open and access = create\n    exceptions:\n      - name: tmp\n        condition: target startswith /tmp/\n';
    const t = new Trace()
      .open(1, '/tmp/a', 'create')
      .open(1, `${WS}/gen/x.c`, 'create')
      .open(1, '/opt/y', 'create');
    const paths = (security: Partial<SecurityOptions>) =>
      evaluateRules({ syscalls: t.events }, buildRuleSet([{ file: 'w.yaml', text }], { security }), CTX).map(
        (a) => a.path,
      );
    expect(paths({})).toEqual([`${WS}/gen/x.c`, '/opt/y']);
    expect(paths({ allow: { w: [{ path: 'gen' }] } })).toEqual(['/opt/y']);
    expect(paths({ allow: { w: ['target = /opt/y'] } })).toEqual([`${WS}/gen/x.c`]);
    expect(paths({ allow: { w: [{ condition: 'proc.name = sh' }] } })).toEqual([]);
    const net =
      'rules:\n  - {id: n, description: d, class: network, severity: error, condition: kind = net}\n';
    const nt = new Trace().record({ host: 'api.github.com' }).record({ host: 'evil.example' });
    const hosts = evaluateRules(
      { syscalls: nt.events, network: nt.records },
      buildRuleSet([{ file: 'n.yaml', text: net }], {
        security: { allow: { n: [{ host: 'api.github.com' }] } },
      }),
      CTX,
    ).map((a) => a.host);
    expect(hosts).toEqual(['evil.example']);
  });

  it('disable removes a rule and severity overrides it', () => {
    const rs = ruleset('kind = open', '', { severity: { r: 'critical' } });
    expect(rs.rules[0]?.severity).toBe('critical');
    expect(ruleset('kind = open', '', { disable: ['r'] }).rules).toEqual([]);
  });
});

describe('alerts', () => {
  it('carry the rule, syscall, path, event position and the process chain up to the root', () => {
    const t = new Trace()
      .exec(2, 1, '/usr/bin/python3', ['python3', 'helper.py'])
      .exec(3, 2, '/usr/bin/cat', ['cat', '/etc/hosts'])
      .open(3, '/etc/hosts');
    const [alert, ...rest] = evaluateRules(
      { syscalls: t.events },
      ruleset('kind = open and target = /etc/hosts'),
      CTX,
    );
    expect(rest).toEqual([]);
    const open = t.events.at(-1);
    expect(alert).toEqual({
      rule: 'r',
      class: 'secrets',
      severity: 'error',
      description: 'test rule',
      message: 'cat /etc/hosts',
      syscall: 'openat',
      path: '/etc/hosts',
      seq: open?.seq,
      ts: open?.ts,
      count: 1,
      process: {
        pid: 3,
        exe: '/usr/bin/cat',
        argv: ['cat', '/etc/hosts'],
        chain: [
          { pid: 3, exe: '/usr/bin/cat', argv: ['cat', '/etc/hosts'] },
          { pid: 2, exe: '/usr/bin/python3', argv: ['python3', 'helper.py'] },
          { pid: 1, exe: '/usr/bin/sh', argv: ['sh', '-c', 'agent'] },
        ],
      },
    });
  });

  it('deduplicate the same rule, resource and process into one alert with a count', () => {
    const t = new Trace()
      .exec(2, 1, '/usr/bin/cat', ['cat'])
      .open(2, '/etc/hosts')
      .open(2, '/etc/hosts')
      .open(2, '/etc/group');
    t.exec(3, 1, '/usr/bin/cat', ['cat']).open(3, '/etc/hosts');
    const alerts = evaluateRules(
      { syscalls: t.events },
      ruleset('kind = open and target startswith /etc/'),
      CTX,
    );
    expect(alerts.map((a) => [a.process.pid, a.path, a.count])).toEqual([
      [2, '/etc/hosts', 2],
      [2, '/etc/group', 1],
      [3, '/etc/hosts', 1],
    ]);
  });

  it('streaming returns each alert once, when first raised, and matches batch', () => {
    const t = new Trace().exec(2, 1, '/usr/bin/cat', ['cat']).open(2, '/etc/hosts').open(2, '/etc/hosts');
    const rs = ruleset('kind = open');
    const m = createMatcher(rs, CTX);
    const perEvent = t.events.map((e) => m.onEvent(e).length);
    expect(perEvent).toEqual([0, 0, 0, 1, 0]);
    expect(m.alerts()).toEqual(evaluateRules({ syscalls: t.events }, rs, CTX));
    expect(m.alerts()[0]?.count).toBe(2);
  });

  it('name the last bridge client as the process behind a proxy record', () => {
    const t = new Trace()
      .exec(2, 1, '/usr/bin/curl', ['curl', 'http://a.example'])
      .connect(2, { family: 'inet', ip: '127.0.0.1', port: 3128 }, -115)
      .record({ host: 'a.example', port: 80, protocol: 'http' });
    const [a] = evaluateRules({ syscalls: t.events, network: t.records }, ruleset('kind = net'), CTX);
    expect(a).toMatchObject({
      syscall: 'proxy-http',
      host: 'a.example',
      port: 80,
      seq: -1,
      process: { pid: 2, exe: '/usr/bin/curl' },
    });
  });

  it('indexes rules by kind: an exec-only rule never sees opens', () => {
    const rs = ruleset('kind = exec and proc.name = cat');
    expect(rs.rules[0]?.kinds).toEqual(['exec']);
    expect(ruleset('syscall in (openat, unlink)').rules[0]?.kinds).toEqual(['open', 'write-meta']);
    expect(ruleset('host = x').rules[0]?.kinds).toEqual(['connect', 'net']);
  });
});

describe('engine state', () => {
  it('resolves reads through symlinks the run created', () => {
    const t = new Trace().meta(1, 'symlink', '/root/.ssh', `${WS}/keys`).open(1, `${WS}/keys/id_rsa`);
    expect(fires('kind = open and target = /root/.ssh/id_rsa', t)).toBe(true);
    expect(fires(`kind = open and path = ${WS}/keys/id_rsa`, t)).toBe(true);
  });

  it('remembers files written earlier (renames and deletes included) for program.written', () => {
    const cond = 'kind = exec and program.written';
    const base = () =>
      new Trace().open(1, '/tmp/dl.part', 'create').meta(1, 'rename', '/tmp/dl.part', '/tmp/dl');
    expect(fires(cond, base().exec(2, 1, '/tmp/dl', ['dl']))).toBe(true);
    expect(fires(cond, base().meta(1, 'unlink', '/tmp/dl').exec(2, 1, '/tmp/dl', ['dl']))).toBe(false);
    expect(fires(cond, base().exec(2, 1, '/tmp/dl.part', ['x']))).toBe(false);
  });

  it('treats an interpreter running a script as running the script', () => {
    const t = new Trace()
      .open(1, '/tmp/s.py', 'create')
      .exec(2, 1, '/usr/bin/python3', ['python3', '-u', 's.py'], { cwd: '/tmp' });
    expect(fires('kind = exec and program = /tmp/s.py and proc.name = s and program.writer = sh', t)).toBe(
      true,
    );
  });

  it('attributes diff findings to the last process that wrote the file', () => {
    const t = new Trace()
      .exec(2, 1, '/usr/bin/node', ['node', 'edit.js'])
      .open(2, `${WS}/package.json`, 'write');
    const rs = ruleset('kind = patch and finding = install-hook');
    const patch =
      'diff --git a/package.json b/package.json\n--- a/package.json\n+++ b/package.json\n@@ -1 +1,2 @@\n {\n+"postinstall": "x"\n';
    const [a] = evaluateRules({ syscalls: t.events, patch }, rs, CTX);
    expect(a).toMatchObject({
      path: `${WS}/package.json`,
      syscall: 'openat',
      seq: t.events.at(-1)?.seq,
      process: { pid: 2, exe: '/usr/bin/node' },
    });
    const [orphan] = evaluateRules({ syscalls: [], patch }, rs, CTX);
    expect(orphan).toMatchObject({
      syscall: 'diff',
      seq: -1,
      process: { pid: 0, exe: 'unknown', chain: [] },
    });
  });
});
