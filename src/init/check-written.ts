import { loadCiConfig } from '../ci/ci-config.js';
import { formatIssue, loadConfig } from '../config/load.js';
import { AgentGuardError } from '../errors.js';

/** The real loader's verdict on a written task config: null when it loads, else its issues as text. */
export function taskConfigIssues(file: string): string | null {
  const loaded = loadConfig(file);
  return loaded.ok ? null : loaded.issues.map(formatIssue).join(' ');
}

/** The same for a CI config, loaded as `agentguard ci` would with `root` as the checkout. */
export function ciConfigIssues(file: string, root: string): string | null {
  try {
    loadCiConfig(file, root);
    return null;
  } catch (err) {
    if (err instanceof AgentGuardError) return err.message;
    throw err;
  }
}
