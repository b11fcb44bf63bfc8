/** Socket address fields as the kernel stores them, turned into text. */

/** An IPv4 address from the little-endian 32-bit word holding `sin_addr` (network order bytes). */
export function ipv4FromWord(word: number): string {
  return wordBytes(word).join('.');
}

/** An IPv6 address (RFC 5952 text) from the four little-endian words holding `sin6_addr`. */
export function ipv6FromWords(words: readonly number[]): string {
  const bytes = words.flatMap(wordBytes);
  const groups: number[] = [];
  for (let index = 0; index < 16; index += 2)
    groups.push(((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0));
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return `::ffff:${bytes.slice(12).join('.')}`;
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** A port from the `sin_port` field (network byte order read as a little-endian number). */
export function portFromNetwork(port: number): number {
  return ((port & 0xff) << 8) | ((port >>> 8) & 0xff);
}

function wordBytes(word: number): number[] {
  return [word & 0xff, (word >>> 8) & 0xff, (word >>> 16) & 0xff, (word >>> 24) & 0xff];
}
