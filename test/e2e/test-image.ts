import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './exec-cli.js';

/** Builds (or finds) the local test image the container e2e tests run, as scripts/make-test-image.sh does. */
export function makeTestImage(): void {
  execFileSync('sh', [path.join(ROOT, 'scripts/make-test-image.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 180_000,
  });
}
