import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../package-root.js';
import { evaluateRules } from './evaluate.js';
import { loadRuleSet } from './load-rules.js';
import { CTX, Trace } from './test-events.js';
import { malformedTunables } from './tunables.js';

const rules = loadRuleSet({}, { rulesDir: path.join(packageRoot(), 'rules') });
const fired = (t: Trace) =>
  evaluateRules({ syscalls: t.events, network: [] }, rules, CTX).filter(
    (a) => a.rule === 'exec-glibc-tunables',
  );

describe('GLIBC_TUNABLES (CVE-2023-4911 and its kin)', () => {
  it.each([
    ['a value holding another setting', 'glibc.malloc.mxfast=glibc.malloc.mxfast=A'],
    ['after an honest item', 'glibc.malloc.hugetlb=1:glibc.tune.hwcaps=glibc.tune.hwcaps=AAAA'],
    ['an item that is no setting', 'AAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a name outside glibc', 'x.y.z=1'],
    ['an overlong value', `glibc.cpu.hwcaps=${'-A'.repeat(200)}`],
    ['a value with a shell metacharacter', 'glibc.malloc.check=3;id'],
  ])('%s is malformed', (_name, value) => {
    expect(malformedTunables([`GLIBC_TUNABLES=${value}`]).length).toBeGreaterThan(0);
  });

  it.each([
    'glibc.malloc.hugetlb=1',
    'glibc.malloc.hugetlb=1:glibc.pthread.rseq=0',
    'glibc.cpu.hwcaps=-AVX2_Usable,-AVX_Fast_Unaligned_Load',
    'glibc.malloc.arena_max=2:glibc.malloc.tcache_count=0',
    'glibc.cpu.x86_shstk=off',
    '',
  ])('%s is a setting', (value) => {
    expect(malformedTunables([`GLIBC_TUNABLES=${value}`, 'LD_PRELOAD=x'])).toEqual([]);
  });

  it('fires where the run sets it, once for a line of processes, never for what the harness set', () => {
    const bad = 'GLIBC_TUNABLES=glibc.malloc.mxfast=glibc.malloc.mxfast=A';
    const t = new Trace([]);
    t.exec(2, 1, '/usr/bin/su', ['su'], { env: [bad] }).exec(3, 2, '/usr/bin/sh', ['sh'], { env: [bad] });
    expect(fired(t)).toHaveLength(1);
    const harness = new Trace([bad]);
    harness.exec(2, 1, '/usr/bin/su', ['su'], { env: [bad] });
    expect(fired(harness)).toEqual([]);
    const honest = new Trace([]);
    honest.exec(2, 1, '/usr/bin/true', ['true'], { env: ['GLIBC_TUNABLES=glibc.malloc.hugetlb=1'] });
    expect(fired(honest)).toEqual([]);
  });
});
