/** A byte count for people: '1.5 KiB'. */
export function formatBytes(n) {
  if (n < 1000) return `${n} B`;
  return `${(n / 1000).toFixed(1)} KB`;
}
