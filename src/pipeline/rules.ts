import { existsSync } from 'node:fs';
import { defaultRuleFiles, readRuleSources } from '../analysis/rules/load-rules.js';
import { buildRuleSet, type RuleSource } from '../analysis/rules/ruleset.js';
import type { RuleSet, SecurityOptions } from '../analysis/rules/types.js';
import type { ResolvedConfig } from '../config/schema.js';
import { RuleSourcesSchema } from '../evidence/bundle-types.js';
import { runPath } from '../evidence/layout.js';
import { readJson } from '../evidence/read.js';
import { writeJson } from '../evidence/write.js';

export type LoadedRules = { ruleset: RuleSet; sources: RuleSource[] };

function securityOptions(cfg: ResolvedConfig): SecurityOptions {
  const { default_rules, rules, disable, allow, severity } = cfg.security;
  return { default_rules, rules, disable, allow, severity };
}

/** The config's rule set, read from disk and validated; a broken rule file is a ConfigError before any run. */
export function loadRunRules(cfg: ResolvedConfig): LoadedRules {
  const files = [...(cfg.security.default_rules ? defaultRuleFiles() : []), ...cfg.security.rules];
  const sources = readRuleSources(files, cfg.config_path);
  return {
    sources,
    ruleset: buildRuleSet(sources, { security: securityOptions(cfg), configFile: cfg.config_path }),
  };
}

/** Keep the exact rule texts a run was judged by, so re-analysis judges it the same way later. */
export function saveRunRules(runDir: string, rules: LoadedRules): void {
  writeJson(runPath(runDir, 'rules'), { sources: rules.sources });
}

/** The rules stored with a run, or (for runs recorded before rules were stored) the config's current ones. */
export function rulesOfRun(runDir: string, cfg: ResolvedConfig): RuleSet {
  const file = runPath(runDir, 'rules');
  if (!existsSync(file)) return loadRunRules(cfg).ruleset;
  const { sources } = readJson(file, undefined, RuleSourcesSchema, runDir);
  return buildRuleSet(sources, { security: securityOptions(cfg), configFile: cfg.config_path });
}
