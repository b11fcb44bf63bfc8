import { describe, expect, it } from 'vitest';
import { makeBundle } from '../test-bundle.js';
import { observationComplete } from './observation-complete.js';

const state = (incomplete?: string[]) => ({
  files: [],
  changes: [],
  ...(incomplete ? { incomplete } : {}),
});

describe('observation-complete', () => {
  it('passes a whole trace and a whole record of the protected files', () => {
    expect(observationComplete.run(makeBundle({ protected_state: state() })).passed).toBe(true);
  });

  it('fails when the record of the protected files could not be walked to the end', () => {
    const r = observationComplete.run(makeBundle({ protected_state: state(['/root/.local/big']) }));
    expect(r.passed).toBe(false);
    expect(r.message).toBe(
      'the record of protected files (HOME, .git) is incomplete: 1 folder(s) not walked',
    );
    expect(r.evidence).toEqual([{ path: '/root/.local/big', detail: 'not walked to the end' }]);
  });
});
