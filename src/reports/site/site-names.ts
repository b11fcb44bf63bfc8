import { createHash } from 'node:crypto';

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * A file name for an id from history. Run and batch ids agentguard makes are plain and kept as
 * they are; anything else (a hand-edited history.db) gets a name derived from its hash, so an id
 * can never climb out of the site folder, hide as a dot file or collide with another by case.
 */
export function siteFileName(id: string): string {
  if (PLAIN.test(id) && id.toLowerCase() === id) return `${id}.html`;
  return `id-${createHash('sha256').update(id).digest('hex').slice(0, 24)}.html`;
}
