export { buildRuleContext, type ContextInput } from './context.js';
export { evaluateRules } from './evaluate.js';
export { defaultRuleFiles, defaultRulesDir, loadRuleSet, readRuleSources } from './load-rules.js';
export { createMatcher } from './matcher.js';
export { persistenceFromPatch } from './persistence-patch.js';
export { type BuildOptions, buildRuleSet, type RuleSource } from './ruleset.js';
export type {
  Alert,
  AlertProcessRef,
  AllowEntry,
  Matcher,
  PatchFinding,
  RuleClass,
  RuleContext,
  RuleInput,
  RuleSet,
  SecurityOptions,
} from './types.js';
