import { renameSync, writeFileSync } from 'node:fs';
import { defaultRuleFiles, readRuleSources } from './load-rules.js';
import { PARSED_RULES_FILE, type ParsedRulesTable, parsedRules, parserHash } from './parsed-rules.js';

/**
 * `npm run build` runs this after tsc: the shipped rule files parsed once, so that a run does not
 * parse 70 KB of YAML before it starts (parsed-rules.ts; a rule file that differs is parsed as usual).
 */
const table: ParsedRulesTable = {
  parser: parserHash(),
  files: parsedRules(readRuleSources(defaultRuleFiles())),
};
writeFileSync(`${PARSED_RULES_FILE}.tmp`, JSON.stringify(table));
renameSync(`${PARSED_RULES_FILE}.tmp`, PARSED_RULES_FILE);
