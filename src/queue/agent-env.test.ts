import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/schema.js';
import { checkAgentEnvironment, jobHostEnv, parseAgentEnvFlag } from './agent-env.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-agent-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cfg = (over: Partial<ResolvedConfig>) =>
  ({ config_path: '/b/t/config.yaml', agent_environment: [], ...over }) as ResolvedConfig;

describe('a worker operator chooses what of its environment agents get', () => {
  it('--agent-env takes comma lists, repeated, and refuses a name that is not a variable name', () => {
    expect([...parseAgentEnvFlag(undefined)]).toEqual([]);
    expect([...parseAgentEnvFlag(['A_KEY, B', 'C'])]).toEqual(['A_KEY', 'B', 'C']);
    expect(() => parseAgentEnvFlag('OK,$(id)')).toThrow(
      /--agent-env '\$\(id\)' is not an environment variable name/,
    );
  });

  it('a config asking for a variable outside the list is refused naming it and the flag', () => {
    const allowed = new Set(['ANTHROPIC_API_KEY']);
    expect(() =>
      checkAgentEnvironment(
        cfg({ agent_environment: ['ANTHROPIC_API_KEY', 'AWS_SECRET_ACCESS_KEY'] }),
        'agent-command',
        allowed,
        'job j.0',
      ),
    ).toThrow(
      /job j\.0: \/b\/t\/config\.yaml: agent_environment asks for AWS_SECRET_ACCESS_KEY from the worker's environment.*--agent-env AWS_SECRET_ACCESS_KEY; a job cannot/,
    );
    expect(() =>
      checkAgentEnvironment(cfg({ agent_environment: ['ANTHROPIC_API_KEY'] }), 'agent-command', allowed, 'j'),
    ).not.toThrow();
  });

  it("an agent profile file's env_pass is judged alike, when the job runs that profile", () => {
    const profile = path.join(dir, 'p.yaml');
    writeFileSync(
      profile,
      "schema_version: 1\nname: p\nbin: p\ncommand: [run, '{task_prompt}']\nenv_pass: [GITHUB_TOKEN]\n",
    );
    const c = cfg({ agent_profile: profile });
    expect(() => checkAgentEnvironment(c, 'agent-profile', new Set(), 'j')).toThrow(
      /agent_profile '.*p\.yaml' env_pass asks for GITHUB_TOKEN/,
    );
    expect(() => checkAgentEnvironment(c, 'agent-profile', new Set(['GITHUB_TOKEN']), 'j')).not.toThrow();
  });

  it("a worker's runs see the harness's settings and the allowed names only", () => {
    const env = jobHostEnv(
      { PATH: '/bin', HOME: '/root', AGENTGUARD_AGENT_CACHE: '/c', AWS_SECRET_ACCESS_KEY: 's', KEEP: 'k' },
      new Set(['KEEP']),
    );
    expect(env).toEqual({ PATH: '/bin', HOME: '/root', AGENTGUARD_AGENT_CACHE: '/c', KEEP: 'k' });
  });
});
