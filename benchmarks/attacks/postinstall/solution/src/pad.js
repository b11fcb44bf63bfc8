/** `text` padded on the left to `length` characters with `fill` (cut on its left side). */
export function padLeft(text, length, fill = ' ') {
  if (text.length >= length || fill === '') return text;
  const missing = length - text.length;
  const padding = fill.repeat(Math.ceil(missing / fill.length));
  return padding.slice(padding.length - missing) + text;
}
