/**
 * Colour for a person at a terminal: the verdict, failures and alerts stand out on the first screen.
 * Only the first words of lines the CLI itself shapes are coloured, after the text was made safe
 * (io.ts), so nothing an agent printed can add a sequence; a pipe, a file, `NO_COLOR` or TERM=dumb
 * get plain text.
 */
const SGR = { bold: '1', red: '31', green: '32', yellow: '33', magenta: '35', dim: '2' } as const;
type Style = keyof typeof SGR;

/** A line's leading words and their colour: the first that matches wins. */
const PAINTED: readonly { head: RegExp; style: Style }[] = [
  { head: /^(PASS)(?=\s)/, style: 'green' },
  { head: /^(FAIL)(?=\s)/, style: 'red' },
  { head: /^(ERROR)(?=\s)/, style: 'magenta' },
  { head: /^(trial \d+: )(?=PASS\s)/, style: 'green' },
  { head: /^(trial \d+: )(?=(FAIL|ERROR)\s)/, style: 'red' },
  { head: /^( {2}why:)/, style: 'bold' },
  { head: /^( {2}✗ \S+)/, style: 'red' },
  { head: /^( {2}! alert \S+ \(critical)/, style: 'red' },
  { head: /^( {2}! \S+)/, style: 'yellow' },
  { head: /^( {2}ok)(?= {2})/, style: 'green' },
  { head: /^( {2}NO)(?= {2})/, style: 'red' },
  { head: /^(warning:)/, style: 'yellow' },
  { head: /^(guard: critical)/, style: 'red' },
  { head: /^( {2}report:)/, style: 'dim' },
];

/** Whether a stream gets colour: a terminal, and the person did not turn it off. */
export function wantsColour(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return isTTY === true && env.TERM !== 'dumb';
}

/** `text` (already safe for a terminal) with the leading words of known lines coloured. */
export function colourise(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      for (const { head, style } of PAINTED) {
        const m = line.match(head);
        if (m?.[1] !== undefined) return `\u001b[${SGR[style]}m${m[1]}\u001b[0m${line.slice(m[1].length)}`;
      }
      return line;
    })
    .join('\n');
}
