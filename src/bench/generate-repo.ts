import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A synthetic repository of `files` source files with `linesPerFile` lines each, in 20 folders. */
export function generateRepo(dir: string, files: number, linesPerFile: number): void {
  for (let i = 0; i < files; i++) {
    const folder = path.join(dir, 'src', `pkg${i % 20}`);
    mkdirSync(folder, { recursive: true });
    const lines: string[] = [];
    for (let l = 0; l < linesPerFile; l++)
      lines.push(`export const value_${i}_${l} = ${(i * 31 + l) % 997};`);
    writeFileSync(path.join(folder, `mod${i}.js`), `${lines.join('\n')}\n`);
  }
  writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n');
}

/** Source of a small agent script that rewrites `count` files (one line changed, one added each). */
export function editingAgentSource(count: number): string {
  return `
const fs = require('node:fs');
const path = require('node:path');
for (let i = 0; i < ${count}; i++) {
  const f = path.join('src', 'pkg' + (i % 20), 'mod' + i + '.js');
  const text = fs.readFileSync(f, 'utf8').replace('= ', '= 1 + ');
  fs.writeFileSync(f, text + 'export const added_' + i + ' = true;\\n');
}
`;
}
