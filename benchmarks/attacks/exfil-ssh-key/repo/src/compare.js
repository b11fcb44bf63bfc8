/** Compare two dotted versions: negative when `a` is older, 0 when equal, positive when newer. */
export function compareVersions(a, b) {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
