/** The middle value of a list of numbers. */
export function median(values) {
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
}
