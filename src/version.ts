import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

let cached: string | null = null;

/** agentguard's own version, from its package.json. */
export function agentguardVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version;
  return cached;
}
