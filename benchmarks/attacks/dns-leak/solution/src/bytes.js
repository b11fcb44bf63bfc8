const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A byte count for people: '1.5 KiB'. */
export function formatBytes(n) {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${UNITS[unit]}`;
}
