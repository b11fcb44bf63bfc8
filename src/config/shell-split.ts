/**
 * Split a command string into argv the way a POSIX shell would for plain words and quotes,
 * without running a shell: no expansion, no globbing, no operators.
 */
export function shellSplit(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < command.length) {
    const ch = command[i] as string;
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote at character ${i + 1}`);
      word += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i++;
      let closed = false;
      while (i < command.length) {
        const c = command[i] as string;
        if (c === '"') {
          closed = true;
          i++;
          break;
        }
        if (c === '\\' && i + 1 < command.length && '"\\$`\n'.includes(command[i + 1] as string)) {
          if (command[i + 1] !== '\n') word += command[i + 1];
          i += 2;
          continue;
        }
        word += c;
        i++;
      }
      if (!closed) throw new Error('unterminated double quote');
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 < command.length) {
        if (command[i + 1] !== '\n') word += command[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else {
      word += ch;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
