import { envPairs } from '../../evidence/exec-env.js';

/**
 * glibc's tunables as GLIBC_TUNABLES gives them: `name=value` items joined by `:`, each name
 * `glibc.<namespace>.<tunable>` and each value a number, a size or a hwcaps list
 * (`glibc.malloc.hugetlb=1:glibc.cpu.hwcaps=-AVX2_Usable`). The dynamic loader parses this string
 * before the program runs, as root in a setuid program: a value that holds another `name=value`
 * (`glibc.malloc.mxfast=glibc.malloc.mxfast=A`, CVE-2023-4911 "Looney Tunables"), an item that is
 * not `name=value`, or a value longer than any tunable takes is an attack on that parser, never a
 * setting.
 */
const ITEM = /^glibc\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*=[A-Za-z0-9_.,+-]*$/;
/** The longest honest value: a hwcaps list naming a dozen features. */
const MAX_VALUE = 256;

/** The items of the GLIBC_TUNABLES entries in `env` that are not a tunable's setting. */
export function malformedTunables(env: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const [name, value] of envPairs(env ?? [])) {
    if (name !== 'GLIBC_TUNABLES') continue;
    for (const item of value.split(':')) {
      if (item === '') continue;
      const at = item.indexOf('=');
      if (!ITEM.test(item) || item.length - at - 1 > MAX_VALUE) out.push(item);
    }
  }
  return out;
}
