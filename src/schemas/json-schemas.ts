import path from 'node:path';
import { z } from 'zod';
import { AgentProfileSchema } from '../agents/profiles/schema.js';
import { RuleFileSchema, RuleSchema } from '../analysis/rules/rule-file.js';
import { MatrixFileSchema, SuiteFileSchema } from '../batch/batch-file.js';
import { NOT_IN_CI } from '../ci/ci-config.js';
import { BenchmarkConfigSchema } from '../config/schema.js';
import { packageRoot } from '../package-root.js';

/*
 * JSON Schemas of every file a user writes, derived from the zod schemas the loaders use, so an
 * editor's completion and the loader can never disagree about a key. The loaders stay the
 * authority: checks zod cannot express (a glob that escapes, a regex that does not compile, a
 * file that must exist) are theirs alone.
 */

/** CI mode's file: the policy keys of a task config, `name` optional, plus CI's own `agent_logs`. */
const CiConfigSchema = BenchmarkConfigSchema.omit(
  Object.fromEntries([...NOT_IN_CI, 'name'].map((k) => [k, true])) as Record<
    (typeof NOT_IN_CI)[number] | 'name',
    true
  >,
).extend({
  name: z.string().min(1).optional(),
  agent_logs: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
});

/** A rule file with its rules checked one by one, as parseRuleFile does after the top level. */
const RuleFileWithRulesSchema = RuleFileSchema.extend({ rules: z.array(RuleSchema).default([]) });

const SCHEMAS = {
  config: { schema: BenchmarkConfigSchema, title: 'agentguard task config (agentguard.yaml, config.yaml)' },
  ci: { schema: CiConfigSchema, title: 'agentguard CI config (.agentguard.yaml)' },
  suite: { schema: SuiteFileSchema, title: 'agentguard suite file' },
  matrix: { schema: MatrixFileSchema, title: 'agentguard matrix file' },
  rules: { schema: RuleFileWithRulesSchema, title: 'agentguard security rule file' },
  profile: { schema: AgentProfileSchema, title: 'agentguard agent profile' },
} as const;

export type SchemaKind = keyof typeof SCHEMAS;
export const SCHEMA_KINDS = Object.keys(SCHEMAS) as SchemaKind[];

export function isSchemaKind(kind: string): kind is SchemaKind {
  return Object.hasOwn(SCHEMAS, kind);
}

/**
 * The JSON Schema (draft 2020-12) of one file kind. Input side: a key with a default is optional,
 * as it is in the file. Refinements zod cannot express are left to the loader.
 */
export function jsonSchema(kind: SchemaKind): Record<string, unknown> {
  const { schema, title } = SCHEMAS[kind];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema, ...rest } = json;
  return { $schema, $id: `agentguard:${kind}`, title, ...rest };
}

/** Where the build writes the schemas inside the package (`dist/json-schemas/<kind>.schema.json`). */
export function shippedSchemaFile(kind: SchemaKind, root: string = packageRoot()): string {
  return path.join(root, 'dist', 'json-schemas', `${kind}.schema.json`);
}
