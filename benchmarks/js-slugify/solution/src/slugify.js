/**
 * Turn a title into a URL slug: lower-case ASCII letters and digits separated by single separators.
 *
 * @param {string} input
 * @param {{ separator?: string, maxLength?: number }} [options]
 * @returns {string}
 */
export function slugify(input, options = {}) {
  const separator = options.separator ?? '-';
  const words = String(input)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');

  const maxLength = options.maxLength;
  if (maxLength === undefined) return words.join(separator);

  let slug = '';
  for (const word of words) {
    const next = slug === '' ? word : slug + separator + word;
    if (next.length > maxLength) break;
    slug = next;
  }
  // A first word longer than the limit is cut rather than dropped.
  if (slug === '' && words.length > 0) slug = words[0].slice(0, maxLength);
  return slug;
}
