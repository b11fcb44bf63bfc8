import { COMMANDS, type CommandSpec, GROUP_TITLES } from './registry/index.js';

/**
 * The top-level help, grouped by what a user came to do, instead of one flat list of every
 * command; each group lists its commands in registry order.
 */
export const COMMAND_GROUPS: readonly { title: string; commands: readonly string[] }[] = GROUP_TITLES.map(
  (title) => ({ title, commands: COMMANDS.filter((c) => c.group === title).map((c) => c.name) }),
);

type Section = { title?: string; body: string };

const WIDTH = 100;

/** cac's help sections with the flat "Commands" list grouped and the per-command --help list cut to one line. */
export function groupHelp(sections: Section[]): Section[] {
  if (!sections.some((s) => s.title === 'Commands')) return sections;
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const out: Section[] = [];
  for (const s of sections) {
    if (s.title === 'Commands') {
      for (const g of COMMAND_GROUPS) {
        const listed = g.commands.flatMap((n) => COMMANDS.filter((c) => c.name === n));
        out.push({ title: g.title, body: listed.map((c) => entry(c.usage, c.summary, width)).join('\n') });
      }
    } else if (s.title?.startsWith('For more info')) {
      out.push({
        body: 'Each command has its own help: agentguard <command> --help (or agentguard help <command>)',
      });
    } else if (s.title === 'Options') out.push({ title: s.title, body: wrapOptions(s.body) });
    else out.push(s);
  }
  return out;
}

/**
 * One command's help: cac's usage and options, with the command's description under the usage,
 * its actions after it and its examples at the end.
 */
export function commandHelp(sections: Section[], spec: CommandSpec, description: string): Section[] {
  const out: Section[] = [];
  for (const s of sections) {
    out.push(s.title === 'Options' ? { title: s.title, body: wrapOptions(s.body) } : s);
    if (s.title !== 'Usage') continue;
    out.push({ body: fill('  ', description, 2) });
    if (spec.actions) {
      const actions = Object.entries(spec.actions);
      const width = Math.max(...actions.map(([name]) => name.length));
      out.push({
        title: 'Actions',
        body: actions.map(([name, help]) => entry(name, help, width)).join('\n'),
      });
    }
  }
  out.push({ title: 'Examples', body: spec.examples.map((e) => `  $ ${e}`).join('\n') });
  return out;
}

/** cac's option lines (`  --flag <x>  help `) with each help wrapped under itself. */
function wrapOptions(body: string): string {
  return body
    .split('\n')
    .map((line) => {
      const m = /^( {2}\S.*?\S {2,})(\S.*?)\s*$/.exec(line);
      return m ? fill(m[1] as string, m[2] as string, (m[1] as string).length) : line.trimEnd();
    })
    .join('\n');
}

/** `  name  description`, the description wrapped under itself within WIDTH columns. */
function entry(name: string, description: string, width: number): string {
  return fill(`  ${name.padEnd(width)}  `, description, 2 + width + 2);
}

/** `text` filled after `prefix` into lines of at most WIDTH columns, later lines indented by `indent`. */
function fill(prefix: string, text: string, indent: number): string {
  const lines: string[] = [];
  let line = prefix;
  let first = true;
  for (const word of text.split(' ')) {
    if (!first && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = `${' '.repeat(indent)}${word}`;
    } else line = first ? `${line}${word}` : `${line} ${word}`;
    first = false;
  }
  lines.push(line);
  return lines.join('\n');
}
