import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SetupError } from '../../errors.js';
import type { RenderedFile } from './render-profile.js';

/**
 * Write a rendered profile's config files (owner-only), creating their folders. A path that is
 * already a symlink is refused rather than written through.
 */
export function writeRenderedFiles(files: readonly RenderedFile[]): void {
  for (const file of files) {
    let existing: ReturnType<typeof lstatSync> | undefined;
    try {
      existing = lstatSync(file.path);
    } catch {
      existing = undefined;
    }
    if (existing?.isSymbolicLink()) {
      throw new SetupError(
        `${file.path} is a symlink; the harness does not write config files through links`,
      );
    }
    mkdirSync(path.dirname(file.path), { recursive: true, mode: 0o700 });
    writeFileSync(file.path, file.content, { mode: 0o600 });
  }
}
