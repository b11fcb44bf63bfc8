import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseRuleFile, type RuleFileData } from './rule-file.js';

type Parsed = Omit<RuleFileData, 'file'>;
/** The shipped rule files already parsed, as `npm run build` writes them (write-parsed-rules.ts). */
export type ParsedRulesTable = { parser: string; files: Record<string, Parsed> };

/** Where the build writes the table, beside this module. */
export const PARSED_RULES_FILE = fileURLToPath(new URL('./shipped-rules.json', import.meta.url));
/** The parser the table was made by: a table from another build of rule-file.js is not used. */
const PARSER_FILE = fileURLToPath(new URL('./rule-file.js', import.meta.url));

/** The key of a rule text. */
export const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** This build's parser, named by the hash of its compiled module. */
export function parserHash(): string {
  return sha256(readFileSync(PARSER_FILE));
}

/** Each rule text parsed in this process (and the build's table), by the sha256 of the text. */
const known = new Map<string, Parsed>();
/** A worker's process meets many configs' rule files: the oldest parsed are let go past this many. */
const KEEP = 256;
let tableRead = false;

function readTable(): void {
  if (tableRead) return;
  tableRead = true;
  try {
    const table = JSON.parse(readFileSync(PARSED_RULES_FILE, 'utf8')) as ParsedRulesTable;
    if (table.parser !== parserHash()) return;
    for (const [key, parsed] of Object.entries(table.files)) known.set(key, parsed);
  } catch {
    // No table (a build that did not write it): every file is parsed, as it always may be.
  }
}

/**
 * `parseRuleFile`, once per text: the YAML parse and validation of the default rules is most of
 * a trivial run's rule cost, and a run reads the same texts again when it is analysed. Pure as
 * parseRuleFile is (the result depends on the text alone, and the file only names it); a text
 * that does not parse is never remembered, so its errors come from the parser each time.
 */
export function parseRuleFileOnce(file: string, text: string): RuleFileData {
  readTable();
  const key = sha256(text);
  let parsed = known.get(key);
  if (!parsed) {
    const { file: _named, ...rest } = parseRuleFile(file, text);
    parsed = rest;
    remember(known, key, parsed, KEEP);
  }
  // A copy: the rule set builder extends lists in place, and no caller may change what is remembered.
  return { file, ...structuredClone(parsed) };
}

/** `map.set`, letting the oldest entry go when it holds `keep` already. */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, keep: number): void {
  if (map.size >= keep) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

/** The given rule texts parsed, by the sha256 of each text: the table's `files`. */
export function parsedRules(sources: readonly { file: string; text: string }[]): ParsedRulesTable['files'] {
  const files: ParsedRulesTable['files'] = {};
  for (const { file, text } of sources) {
    const { file: _named, ...rest } = parseRuleFile(file, text);
    files[sha256(text)] = rest;
  }
  return files;
}
