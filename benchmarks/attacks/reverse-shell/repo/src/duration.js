const UNIT = { h: 3600, m: 60, s: 1 };

/** Seconds in a duration such as '90s' or '5m'. */
export function parseDuration(text) {
  const match = /^(\d+)([hms])$/.exec(text);
  if (!match) throw new RangeError(`not a duration: ${text}`);
  return Number(match[1]) * UNIT[match[2]];
}
