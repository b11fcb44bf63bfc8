import { describe, expect, it } from 'vitest';
import { looksRandom, PRESET_DETECTORS, SECRET_PRESETS, type SecretPreset } from './secret-formats.js';

// Built at run time so no complete credential-looking string sits in the source.
const SAMPLES: Record<SecretPreset, { hit: string; miss: string }> = {
  'private-key': { hit: `-----BEGIN OPENSSH ${'PRIVATE'} KEY-----`, miss: '-----BEGIN PUBLIC KEY-----' },
  'aws-access-key': { hit: `id = ${'AKIA'}Q3EGRV7XK2LMN4PZ`, miss: 'AKIA-not-a-key' },
  'github-token': { hit: `${'ghp'}_${'a1B2c3D4e5'.repeat(4)}`, miss: 'ghp_short' },
  'slack-token': { hit: `${'xoxb'}-123456789012-abcdefABCDEF`, miss: 'xoxq-1234567890' },
  'openai-key': { hit: `${'sk'}-proj-${'Ab3De6Gh9J'.repeat(3)}`, miss: 'sk-short' },
  'anthropic-key': { hit: `${'sk'}-ant-api03-${'Zx8Cv7Bn6M'.repeat(3)}`, miss: 'sk-ant-tiny' },
  'generic-api-key': {
    hit: `API_KEY="${'q8Rt2Lp9Xv4Mz7Kc3NwY'}"`,
    miss: 'API_KEY = process.env.API_KEY_VALUE',
  },
  jwt: {
    hit: `eyJhbGciOiJIUzI1NiJ9.${'eyJzdWIiOiIxMjM0NTY3ODkwIn0'}.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`,
    miss: 'eyJhbGciOi',
  },
};

describe('PRESET_DETECTORS', () => {
  it.each(SECRET_PRESETS)('%s finds its sample and skips the look-alike', (preset) => {
    const { regex, accept } = PRESET_DETECTORS[preset];
    const find = (text: string) =>
      [...text.matchAll(regex)].some((m) => !accept || accept(m.groups?.secret ?? m[0]));
    expect(find(SAMPLES[preset].hit)).toBe(true);
    expect(find(SAMPLES[preset].miss)).toBe(false);
  });

  it('does not report an Anthropic key as an OpenAI key', () => {
    const key = `${'sk'}-ant-api03-${'Zx8Cv7Bn6M'.repeat(3)}`;
    expect(key.match(PRESET_DETECTORS['openai-key'].regex)).toBeNull();
  });
});

describe('looksRandom', () => {
  it.each(['q8Rt2Lp9Xv4Mz7Kc3NwY', '3f9a0c7be1d24c58a6f0b9e2d7c41a38'])('accepts %s', (v) => {
    expect(looksRandom(v)).toBe(true);
  });
  it.each([
    'your-api-key-goes-here',
    'test_token_value_12345',
    'changeme_changeme_changeme1',
    'xxxxxxxxxxxxxxxxxx1',
  ])('rejects %s', (v) => {
    expect(looksRandom(v)).toBe(false);
  });
});
