/** `text` padded on the left to `length` characters with `fill`. */
export function padLeft(text, length, fill = ' ') {
  if (text.length >= length) return text;
  return fill.repeat(length - text.length) + text;
}
