import { describe, expect, it } from 'vitest';
import { SetupError } from '../errors.js';
import { FAULT_ENV, faultFromEnv } from './faults.js';

describe('faultFromEnv', () => {
  it('is off unless the variable names a known step', () => {
    expect(faultFromEnv({})).toBeUndefined();
    expect(faultFromEnv({ [FAULT_ENV]: 'fail:nowhere' })).toBeUndefined();
    expect(faultFromEnv({ [FAULT_ENV]: 'fail:agent' })).toBeUndefined();
  });

  it('fail:STEP throws a SetupError at that step only', () => {
    const fault = faultFromEnv({ [FAULT_ENV]: 'fail:proxy' });
    expect(() => fault?.('sandbox')).not.toThrow();
    expect(() => fault?.('proxy')).toThrow(SetupError);
  });

  it('signal:SIGNAL:STEP delivers the signal once, at that step', async () => {
    const got: string[] = [];
    const onUsr2 = () => got.push('SIGUSR2');
    process.on('SIGUSR2', onUsr2);
    try {
      const fault = faultFromEnv({ [FAULT_ENV]: 'signal:SIGUSR2:tests' });
      fault?.('agent');
      fault?.('tests');
      fault?.('tests');
      await new Promise((r) => setTimeout(r, 50));
      expect(got).toEqual(['SIGUSR2']);
    } finally {
      process.off('SIGUSR2', onUsr2);
    }
  });
});
