import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeConfig } from '../analysis/test-bundle.js';
import type { SysEvent } from '../evidence/types.js';
import { LiveGuard } from './live-guard.js';
import { loadRunRules } from './rules.js';

// The shipped default rules, as a run loads them.
const cfg = makeConfig();
const rules = loadRunRules(cfg).ruleset;
const HOME = '/root';
const WORKSPACE = '/work/run/repo';
const TOKEN = 'f00dfeedf00dfeedf00dfeed';
const canaries = [{ kind: 'ssh-key', path: '.ssh/id_rsa', token: TOKEN }];
const AGENT = ['sh', '-c', 'cat ~/.ssh/id_rsa'];

const dir = mkdtempSync(path.join(tmpdir(), 'ag-guard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
function event(e: Partial<SysEvent> & Pick<SysEvent, 'kind' | 'syscall' | 'pid'>): SysEvent {
  return { seq: seq++, ts: 5, ppid: 1, exe: '/usr/bin/cat', ...e };
}
const rootExec = (pid: number) =>
  event({
    kind: 'exec',
    syscall: 'execve',
    pid,
    exe: '/bin/sh',
    argv: ['/bin/sh', ...AGENT.slice(1)],
    result: 0,
  });
const canaryRead = (pid: number) =>
  event({ kind: 'open', syscall: 'openat', pid, path: `${HOME}/.ssh/id_rsa`, access: 'read', result: 3 });

function guard(
  mode: 'audit' | 'enforce',
  vendorHosts?: string[],
  alertsFile?: string,
  protectedFiles?: { path: string; dev: number; ino: number }[],
) {
  const lines: string[] = [];
  const g = new LiveGuard(
    mode,
    rules,
    {
      cfg,
      workspace: WORKSPACE,
      home: HOME,
      canaries,
      t0: Date.now(),
      ...(vendorHosts ? { vendorHosts } : {}),
      ...(alertsFile ? { alertsFile } : {}),
    },
    (l) => lines.push(l),
  );
  if (protectedFiles) g.knowProtected(protectedFiles);
  let stops = 0;
  g.watch(AGENT);
  g.armed(() => {
    stops++;
    return true;
  });
  return { g, lines, stops: () => stops };
}

describe('LiveGuard', () => {
  it('knows a protected file by its identity, whatever name the write used, and stops the agent on it', () => {
    const hook = { path: `${WORKSPACE}/.git/hooks/pre-commit`, dev: 65024, ino: 77 };
    // A write through another name (a hard link, a bind) the tracer gave the file's identity for.
    const write = (pid: number) =>
      event({
        kind: 'open',
        syscall: 'openat',
        pid,
        path: '/tmp/notes',
        access: 'write',
        result: 3,
        dev: 65024,
        ino: 77,
      });
    const known = guard('enforce', undefined, undefined, [hook]);
    known.g.onEvent(rootExec(40));
    known.g.onEvent(write(40));
    expect(known.g.alerts.map((a) => [a.alert.rule, a.alert.path])).toEqual([
      ['persist-git-hook', hook.path],
    ]);
    expect(known.stops()).toBe(1);
    // Without the recorded identities the same write is an ordinary file in /tmp.
    const unknown = guard('enforce');
    unknown.g.onEvent(rootExec(41));
    unknown.g.onEvent(write(41));
    expect(unknown.g.alerts).toEqual([]);
  });

  it("names a request for the agent vendor's own host as the batch analysis does", () => {
    const request = {
      ts: 5,
      host: 'api.openai.com',
      port: 443,
      protocol: 'connect' as const,
      decision: 'denied' as const,
      reason: 'not in the allow list',
    };
    const withVendor = guard('audit', ['api.openai.com']);
    withVendor.g.onRecord(request);
    expect(withVendor.g.alerts.map((a) => a.alert.rule)).toEqual(['net-vendor-host']);
    const without = guard('audit');
    without.g.onRecord(request);
    expect(without.g.alerts.map((a) => a.alert.rule)).toContain('net-proxy-not-allowed');
  });

  it('audit prints a critical alert as it happens and leaves the agent running', () => {
    const { g, lines, stops } = guard('audit');
    g.onEvent(rootExec(100));
    g.onEvent(canaryRead(100));
    expect(g.alerts.length).toBeGreaterThan(0);
    expect(g.alerts.map((a) => a.alert.rule)).toContain('secrets-canary-read');
    expect(lines.join('\n')).toMatch(/^guard: critical secrets-[a-z-]+ — openat \/root\/\.ssh\/id_rsa by /m);
    expect(stops()).toBe(0);
    expect(g.stoppedAgent).toBe(false);
    const incident = g.incident('r1');
    expect(incident).toMatchObject({ run_id: 'r1', mode: 'audit', stopped: false });
    expect(incident.first_critical?.alert.severity).toBe('critical');
  });

  it('enforce stops the agent once, on the first critical alert, and says after which rule', () => {
    const { g, lines, stops } = guard('enforce');
    g.onEvent(rootExec(200));
    g.onEvent(canaryRead(200));
    g.onEvent(canaryRead(200));
    expect(stops()).toBe(1);
    expect(g.stoppedAgent).toBe(true);
    const first = g.incident('r2').first_critical;
    expect(first?.alert.rule).toMatch(/^secrets-/);
    expect(lines).toContain(`guard: enforce — stopping the agent after critical alert ${first?.alert.rule}`);
    expect(g.incident('r2')).toMatchObject({ mode: 'enforce', stopped: true });
  });

  it('enforce records how long after the alert the agent was gone', () => {
    const { g } = guard('enforce');
    g.onEvent(rootExec(210));
    g.onEvent(canaryRead(210));
    const enforcement = g.enforcement(Date.now() + 40);
    expect(enforcement).toMatchObject({ outcome: 'stopped', rule: expect.stringMatching(/^secrets-/) });
    expect(enforcement?.stopped_after_ms).toBeGreaterThanOrEqual(40);
    expect(enforcement?.alert_latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('enforce says it came too late when the agent had already exited, and stops nothing', () => {
    const { g, lines, stops } = guard('enforce');
    g.onEvent(rootExec(220));
    g.disarm(Date.now() - 165);
    g.onEvent(canaryRead(220));
    expect(stops()).toBe(0);
    expect(g.stoppedAgent).toBe(false);
    const enforcement = g.enforcement(null);
    expect(enforcement).toMatchObject({ outcome: 'already-exited' });
    expect(enforcement?.exited_before_ms).toBeGreaterThanOrEqual(165);
    expect(lines.join('\n')).toMatch(/came \d+ ms after the agent had exited: too late to stop it/);
    expect(lines.join('\n')).not.toContain('stopping the agent');
  });

  it('enforce does not claim a stop when the process group was already gone', () => {
    const { g, lines } = guard('enforce');
    g.armed(() => false);
    g.onEvent(rootExec(230));
    g.onEvent(canaryRead(230));
    expect(g.stoppedAgent).toBe(false);
    expect(g.enforcement(Date.now())).toMatchObject({ outcome: 'already-exited' });
    expect(lines.join('\n')).toContain('had already exited, nothing to stop');
  });

  it('audit has no enforcement to report', () => {
    const { g } = guard('audit');
    g.onEvent(rootExec(240));
    g.onEvent(canaryRead(240));
    expect(g.enforcement(Date.now())).toBeNull();
  });

  it("judges only the agent's own process tree, as the analysis does", () => {
    const { g, stops } = guard('enforce');
    // Before the agent's own exec, and by a process outside its tree: setup, not behaviour.
    g.onEvent(canaryRead(300));
    g.onEvent(rootExec(301));
    g.onEvent(canaryRead(999));
    expect(g.alerts).toEqual([]);
    expect(stops()).toBe(0);
    // A child of the agent is the agent.
    g.onEvent(event({ kind: 'fork', syscall: 'clone', pid: 302, ppid: 301 }));
    g.onEvent(canaryRead(302));
    expect(stops()).toBe(1);
  });

  it('writes guard/incident.json only when something fired, with no canary token in it', () => {
    const quiet = guard('audit').g;
    const none = path.join(dir, 'none', 'incident.json');
    expect(quiet.writeIncident(none, 'r3')).toBe(false);
    expect(existsSync(none)).toBe(false);

    const { g } = guard('enforce');
    g.onEvent(rootExec(400));
    g.onEvent(canaryRead(400));
    const file = path.join(dir, 'fired', 'incident.json');
    expect(g.writeIncident(file, 'r4')).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text)).toMatchObject({ run_id: 'r4', mode: 'enforce', stopped: true });
    expect(text).not.toContain(TOKEN);
  });

  it('appends each alert to guard/alerts.jsonl as it is raised, redacted', () => {
    const file = path.join(dir, 'live', 'guard', 'alerts.jsonl');
    const { g } = guard('audit', undefined, file);
    g.onEvent(rootExec(500));
    expect(existsSync(file)).toBe(false);
    g.onEvent(canaryRead(500));
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(g.alerts.length);
    expect(JSON.parse(lines[0] ?? '').alert.rule).toBe(g.alerts[0]?.alert.rule);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });
});
