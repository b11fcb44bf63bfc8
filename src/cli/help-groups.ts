/**
 * The top-level help, grouped by what a user came to do, instead of one flat list of every
 * command. A command no group names is listed under "other", so none is ever hidden.
 */
export const COMMAND_GROUPS: readonly { title: string; commands: readonly string[] }[] = [
  { title: 'Start here', commands: ['init', 'run', 'demo', 'doctor'] },
  { title: 'Batches', commands: ['benchmark', 'suite', 'matrix', 'resume', 'gate', 'worker'] },
  { title: 'Reports', commands: ['reports', 'compare', 'analyze', 'trace', 'view'] },
  { title: 'CI', commands: ['ci'] },
  {
    title: 'Benchmarks',
    commands: ['registry', 'audit', 'pack', 'keys', 'index', 'benchmarks', 'schema', 'checks', 'rules'],
  },
  { title: 'Agents', commands: ['agents', 'model-server'] },
  { title: 'Host and diagnostics', commands: ['collector', 'diagnostics', 'benchmark-overhead'] },
];

type Section = { title?: string; body: string };
type Command = { name: string; rawName: string; description: string };

const WIDTH = 100;

/** cac's help sections with the flat "Commands" list grouped and the per-command --help list cut to one line. */
export function groupHelp(sections: Section[], commands: readonly Command[]): Section[] {
  if (!sections.some((s) => s.title === 'Commands')) return sections;
  const listed = commands.filter((c) => c.name !== '');
  const named = new Set(COMMAND_GROUPS.flatMap((g) => g.commands));
  const groups = [
    ...COMMAND_GROUPS.map((g) => ({
      title: g.title,
      list: g.commands.flatMap((n) => listed.filter((c) => c.name === n)),
    })),
    { title: 'Other', list: listed.filter((c) => !named.has(c.name)) },
  ].filter((g) => g.list.length > 0);
  const width = Math.max(...listed.map((c) => c.rawName.length));
  const out: Section[] = [];
  for (const s of sections) {
    if (s.title === 'Commands') {
      for (const g of groups)
        out.push({ title: g.title, body: g.list.map((c) => entry(c, width)).join('\n') });
    } else if (s.title?.startsWith('For more info')) {
      out.push({ body: 'Each command has its own help: agentguard <command> --help' });
    } else out.push(s);
  }
  return out;
}

/** `  name  description`, the description wrapped under itself within WIDTH columns. */
function entry(c: Command, width: number): string {
  const indent = 2 + width + 2;
  const lines: string[] = [];
  let line = `  ${c.rawName.padEnd(width)}  `;
  let first = true;
  for (const word of c.description.split(' ')) {
    if (!first && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = `${' '.repeat(indent)}${word}`;
    } else line = first ? `${line}${word}` : `${line} ${word}`;
    first = false;
  }
  lines.push(line);
  return lines.join('\n');
}
