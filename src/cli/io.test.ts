import { describe, expect, it } from 'vitest';
import { consoleText, oneLine, terminalSafe } from './io.js';

const ESC = String.fromCharCode(0x1b);
const BEL = String.fromCharCode(0x07);
const CSI = String.fromCharCode(0x9b);
const DEL = String.fromCharCode(0x7f);

describe('terminalSafe', () => {
  it('shows control characters escaped and keeps newlines and tabs', () => {
    expect(terminalSafe(`a${ESC}]0;title${BEL}\tb\nc${ESC}[31md\r`)).toBe(
      'a\\x1b]0;title\\x07\tb\nc\\x1b[31md\\x0d',
    );
  });

  it('escapes DEL and C1 as JSON escapes, so --json output stays the same JSON', () => {
    const json = JSON.stringify({ name: `a${ESC}b${CSI}c${DEL}`, list: [1, 2] }, null, 2);
    const shown = terminalSafe(json);
    expect(shown).not.toMatch(/[\u007f-\u009f]/);
    expect(JSON.parse(shown)).toEqual(JSON.parse(json));
  });

  it('leaves printable text, including non-ASCII, as it is', () => {
    const table = 'task  agent\n────  ─────\ncrème ✓ 漢字';
    expect(terminalSafe(table)).toBe(table);
  });
});

describe('oneLine', () => {
  it('also shows a newline inside a value as \\n', () => {
    expect(oneLine(`x${ESC}]0;x${BEL}\ny.txt`)).toBe('x\\x1b]0;x\\x07\\ny.txt');
  });
});

describe('consoleText', () => {
  it('redacts credentials in anything printed, an error message quoting a command included', () => {
    const key = `${'sk'}-proj-${'Ab3De6Gh9J'.repeat(3)}`;
    expect(consoleText(`agent_command: cannot run 'agent --api-key=${key}'${ESC}[2J`)).toMatch(
      /^agent_command: cannot run 'agent --api-key=\[REDACTED:openai-key:[0-9a-f]{8}\]'\\x1b\[2J\n$/,
    );
  });
});
