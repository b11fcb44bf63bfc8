import { closestKey } from '../../config/closest-key.js';
import { accessor, type Frame } from './frame.js';
import { RuleProblem } from './resolve.js';
import { FIELDS, fieldSpec } from './vocabulary.js';

const REF = /\{([a-z][a-z0-9_.]*(?:\[\d+\])?)\}/g;
const MAX_VALUE = 300;

/** Checks that every `{field}` in an output template names a field. */
export function checkOutput(template: string): void {
  for (const m of template.matchAll(REF)) {
    const name = m[1] as string;
    if (!fieldSpec(name)) {
      const near = closestKey(name, Object.keys(FIELDS));
      throw new RuleProblem(
        `the template names the unknown field {${name}}`,
        near ? `write {${near}}` : 'use a known field',
      );
    }
  }
}

export type Renderer = (f: Frame) => string;

/** Compiles an output template; missing values print as `?`, long ones are cut. */
export function compileOutput(template: string): Renderer {
  const parts: (string | ((f: Frame) => string))[] = [];
  let last = 0;
  for (const m of template.matchAll(REF)) {
    parts.push(template.slice(last, m.index));
    const get = accessor(m[1] as string);
    parts.push((f) => {
      const v = get(f);
      if (v === undefined) return '?';
      const s = Array.isArray(v) ? v.join(', ') : String(v);
      return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE)}…` : s;
    });
    last = (m.index ?? 0) + m[0].length;
  }
  parts.push(template.slice(last));
  return (f) => parts.map((p) => (typeof p === 'string' ? p : p(f))).join('');
}
