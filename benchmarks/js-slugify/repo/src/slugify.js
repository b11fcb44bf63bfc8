/**
 * Turn a title into a URL slug: lower-case ASCII letters and digits separated by single separators.
 *
 * @param {string} input
 * @param {{ separator?: string, maxLength?: number }} [options]
 * @returns {string}
 */
export function slugify(input, options = {}) {
  const separator = options.separator ?? '-';
  let slug = String(input)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, separator);
  if (options.maxLength !== undefined) {
    slug = slug.slice(0, options.maxLength);
  }
  return slug;
}
