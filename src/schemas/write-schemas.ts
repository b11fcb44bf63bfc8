import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { jsonSchema, SCHEMA_KINDS, shippedSchemaFile } from './json-schemas.js';

/**
 * `npm run build` runs this after tsc: every file format's JSON Schema into the package, where
 * the `# yaml-language-server: $schema=` line `agentguard init` writes points.
 */
for (const kind of SCHEMA_KINDS) {
  const file = shippedSchemaFile(kind);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(jsonSchema(kind), null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
