import { readdirSync } from 'node:fs';
import path from 'node:path';
import { YAML_LIMITS } from '../../config/yaml.js';
import { ConfigError, SetupError } from '../../errors.js';
import { readTextFile } from '../../evidence/read.js';
import { packageRoot } from '../../package-root.js';
import { type BuildOptions, buildRuleSet, type RuleSource } from './ruleset.js';
import type { RuleSet, SecurityOptions } from './types.js';

/** The folder of the default rule files shipped with the package. */
export function defaultRulesDir(): string {
  return path.join(packageRoot(), 'rules');
}

/** Reads rule files (with the build's parsed table, parsed-rules.ts, the only file access of the rule engine); a missing file is a ConfigError. */
export function readRuleSources(files: readonly string[], configFile?: string): RuleSource[] {
  return files.map((file) => {
    // Bounded: a rule path linked to /dev/zero or a FIFO must not hang or exhaust memory.
    const read = readTextFile(file, YAML_LIMITS.bytes);
    if (read.ok) return { file, text: read.text };
    const reason = read.error.code === 'missing' ? 'ENOENT' : read.error.detail;
    const message = `cannot read the rule file ${file} (${reason})`;
    throw new ConfigError([
      configFile
        ? { file: configFile, field: 'security.rules', message, fix: 'check the path' }
        : { file, field: '', message, fix: 'check the path' },
    ]);
  });
}

/** The default rule files, in name order. */
export function defaultRuleFiles(dir = defaultRulesDir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new SetupError(
      `the default rules folder ${dir} cannot be read; reinstall agentguard or set security.default_rules: false.`,
      { cause: err },
    );
  }
  return names
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * The rule set for a run: the default rules (unless `security.default_rules` is false), then the
 * config's own rule files (absolute paths), validated together with its allow, disable and severity.
 */
export function loadRuleSet(
  security: Partial<SecurityOptions> = {},
  options: Omit<BuildOptions, 'security'> & { rulesDir?: string } = {},
): RuleSet {
  const files = [
    ...(security.default_rules === false ? [] : defaultRuleFiles(options.rulesDir)),
    ...(security.rules ?? []),
  ];
  const buildOptions: BuildOptions = { security };
  if (options.configFile !== undefined) buildOptions.configFile = options.configFile;
  return buildRuleSet(readRuleSources(files, options.configFile), buildOptions);
}
