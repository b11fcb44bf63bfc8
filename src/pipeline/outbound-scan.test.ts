import { describe, expect, it } from 'vitest';
import { BenchmarkConfigSchema, type ResolvedConfig } from '../config/schema.js';
import { outboundScan, ownCredentials } from './outbound-scan.js';

const cfg = BenchmarkConfigSchema.parse({
  name: 't',
  task: { prompt: 'p' },
  repo: '.',
  test_command: ['true'],
}) as unknown as ResolvedConfig;
const KEY = `sk-ant-api03-${'Xy7'.repeat(12)}`;

describe('ownCredentials and the exemption they give', () => {
  const own = ownCredentials({
    spec: {
      argv: ['claude'],
      cwd: '/w',
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'http://model.agentguard.test:8080/v1', HOME: '/h' },
    },
    vendor_hosts: ['api.anthropic.com', '*.anthropic.com'],
  });

  it('names the vendor hosts and the hosts of the URLs the agent was given', () => {
    expect([...own.hosts].sort()).toEqual(['*.anthropic.com', 'api.anthropic.com', 'model.agentguard.test']);
    expect(own.values).toContain(KEY);
  });

  it("exempts the agent's own key only on its way to those hosts, never a canary or another key", () => {
    const scan = outboundScan(cfg, [{ kind: 'npm-token', token: 'npm_0123456789abcdef01234567' }], own);
    if (!scan?.exempt) throw new Error('an own key and hosts give an exemption');
    const found = scan.scan(`x-api-key: ${KEY}`);
    const mine = found.find((l) => l.detector === 'anthropic-key');
    expect(mine?.own).toBe(true);
    const leak = { where: 'credential-header' as const, ...(mine as NonNullable<typeof mine>) };
    expect(scan.exempt(leak, 'api.anthropic.com')).toBe(true);
    expect(scan.exempt(leak, 'console.anthropic.com')).toBe(true);
    expect(scan.exempt(leak, 'model.agentguard.test')).toBe(true);
    expect(scan.exempt(leak, 'paste.example')).toBe(false);
    const other = scan.scan(`x-api-key: sk-ant-api03-${'Qq1'.repeat(12)}`);
    expect(other.find((l) => l.detector === 'anthropic-key')?.own).toBeUndefined();
  });
});
