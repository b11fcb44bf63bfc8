const UNIT = { h: 3600, m: 60, s: 1 };

/** Seconds in a duration such as '90s', '5m' or '1h30m' (units h, m, s, each once, in that order). */
export function parseDuration(text) {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match || text === '') throw new RangeError(`not a duration: ${text}`);
  const [, h = '0', m = '0', s = '0'] = match;
  return Number(h) * UNIT.h + Number(m) * UNIT.m + Number(s) * UNIT.s;
}
