import type { CheckId } from '../../config/check-ids.js';
import type { Check, CheckSpec } from '../types.js';

/**
 * A check, declared once: its id, default severity, the policy keys it reads, its sentence in
 * docs/config.md and its function. The registry (`./index.ts`), the severities, the keys
 * `analyze --config` replaces and the docs table are all read from this.
 */
export function defineCheck<const Id extends CheckId>(spec: CheckSpec<Id>): Check<Id> {
  return { ...spec, run: (bundle) => ({ ...spec.run(bundle), id: spec.id }) };
}
