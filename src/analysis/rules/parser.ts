import { OPERATORS, type Op } from './ast.js';

/** A value as written: quoted strings are always literals, bare words may name a list. */
export type RawValue = { text: string; quoted: boolean };

/** A condition as parsed, before macros, lists and fields are resolved. */
export type RawExpr =
  | { type: 'and'; items: RawExpr[] }
  | { type: 'or'; items: RawExpr[] }
  | { type: 'not'; item: RawExpr }
  /** A bare identifier: a macro, or a boolean field used as a test. */
  | { type: 'ref'; name: string; col: number }
  | { type: 'test'; field: string; op: Op; values: RawValue[]; list: boolean; col: number };

/** A syntax problem in a condition; `col` is 1-based. */
export class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    readonly col: number,
  ) {
    super(message);
  }
}

type Token =
  | { t: 'lp' | 'rp' | 'comma' | 'end'; col: number }
  | { t: 'op'; v: string; col: number }
  | { t: 'word'; v: string; col: number }
  | { t: 'str'; v: string; col: number };

const SYMBOL_OPS = ['!=', '<=', '>=', '=', '<', '>'];
const WORD_OPS = new Set<string>(OPERATORS.filter((o) => /^[a-z]+$/.test(o)));
const KEYWORDS = new Set(['and', 'or', 'not']);
const WORD_BREAK = /[\s(),'"=<>!]/;

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    const col = i + 1;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: c === '(' ? 'lp' : c === ')' ? 'rp' : 'comma', col });
      i++;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let text = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && (src[j + 1] === c || src[j + 1] === '\\')) j++;
        text += src[j];
        j++;
      }
      if (j >= src.length)
        throw new ConditionSyntaxError(`the string starting at column ${col} is not closed`, col);
      out.push({ t: 'str', v: text, col });
      i = j + 1;
    } else {
      const op = SYMBOL_OPS.find((o) => src.startsWith(o, i));
      if (op) {
        out.push({ t: 'op', v: op, col });
        i += op.length;
        continue;
      }
      if (c === '!')
        throw new ConditionSyntaxError(`'!' at column ${col} is not an operator (use 'not' or '!=')`, col);
      let j = i;
      while (j < src.length && !WORD_BREAK.test(src[j] as string)) j++;
      out.push({ t: 'word', v: src.slice(i, j), col });
      i = j;
    }
  }
  out.push({ t: 'end', col: src.length + 1 });
  return out;
}

/** Parses a condition into a raw tree. Throws ConditionSyntaxError with the column of the problem. */
export function parseCondition(src: string): RawExpr {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = (): Token => tokens[pos] as Token;
  const next = (): Token => tokens[pos++] as Token;
  const isWord = (tok: Token, v: string) => tok.t === 'word' && tok.v === v;
  const describe = (tok: Token): string => {
    if (tok.t === 'end') return 'the end of the condition';
    if (tok.t === 'word' || tok.t === 'op') return `'${tok.v}' at column ${tok.col}`;
    if (tok.t === 'str') return `the string '${tok.v}' at column ${tok.col}`;
    return `'${tok.t === 'lp' ? '(' : tok.t === 'rp' ? ')' : ','}' at column ${tok.col}`;
  };

  const parseOr = (): RawExpr => {
    const items = [parseAnd()];
    while (isWord(peek(), 'or')) {
      next();
      items.push(parseAnd());
    }
    return items.length === 1 ? (items[0] as RawExpr) : { type: 'or', items };
  };
  const parseAnd = (): RawExpr => {
    const items = [parseUnary()];
    while (isWord(peek(), 'and')) {
      next();
      items.push(parseUnary());
    }
    return items.length === 1 ? (items[0] as RawExpr) : { type: 'and', items };
  };
  const parseUnary = (): RawExpr => {
    if (isWord(peek(), 'not')) {
      next();
      return { type: 'not', item: parseUnary() };
    }
    return parsePrimary();
  };
  const parsePrimary = (): RawExpr => {
    const tok = next();
    if (tok.t === 'lp') {
      const inner = parseOr();
      const close = next();
      if (close.t !== 'rp')
        throw new ConditionSyntaxError(`expected ')' but found ${describe(close)}`, close.col);
      return inner;
    }
    if (tok.t !== 'word' || KEYWORDS.has(tok.v) || WORD_OPS.has(tok.v)) {
      throw new ConditionSyntaxError(`expected a field or macro name but found ${describe(tok)}`, tok.col);
    }
    const opTok = peek();
    const op = opTok.t === 'op' ? opTok.v : opTok.t === 'word' && WORD_OPS.has(opTok.v) ? opTok.v : null;
    if (op === null) return { type: 'ref', name: tok.v, col: tok.col };
    next();
    if (op === 'exists')
      return { type: 'test', field: tok.v, op: 'exists', values: [], list: false, col: tok.col };
    if (peek().t === 'lp') {
      next();
      const values: RawValue[] = [];
      while (peek().t !== 'rp') {
        const v = next();
        if (v.t !== 'word' && v.t !== 'str')
          throw new ConditionSyntaxError(`expected a value but found ${describe(v)}`, v.col);
        values.push({ text: v.v, quoted: v.t === 'str' });
        const sep = peek();
        if (sep.t === 'comma') next();
        else if (sep.t !== 'rp')
          throw new ConditionSyntaxError(`expected ',' or ')' but found ${describe(sep)}`, sep.col);
      }
      next();
      return { type: 'test', field: tok.v, op: op as Op, values, list: true, col: tok.col };
    }
    const v = next();
    if (v.t !== 'word' && v.t !== 'str') {
      throw new ConditionSyntaxError(`expected a value after '${op}' but found ${describe(v)}`, v.col);
    }
    if (v.t === 'word' && (KEYWORDS.has(v.v) || WORD_OPS.has(v.v))) {
      throw new ConditionSyntaxError(`expected a value after '${op}' but found ${describe(v)}`, v.col);
    }
    return {
      type: 'test',
      field: tok.v,
      op: op as Op,
      values: [{ text: v.v, quoted: v.t === 'str' }],
      list: false,
      col: tok.col,
    };
  };

  const expr = parseOr();
  const rest = peek();
  if (rest.t !== 'end') throw new ConditionSyntaxError(`unexpected ${describe(rest)}`, rest.col);
  return expr;
}
