import type { Sandbox, SandboxSession } from './types.js';

/** No isolation at all: the agent runs on the host as the harness's user. Reports say so. */
export const localSandbox: Sandbox = {
  kind: 'local',
  capabilities: {
    isolatesNetwork: false,
    bridgesProxy: false,
    hidesHome: false,
    wrapsCommands: false,
    onHost: true,
  },
  async available() {
    return { ok: true, version: 'host' };
  },
  async start(): Promise<SandboxSession> {
    return {
      kind: 'local',
      isolated: false,
      version: 'host',
      detail: 'no isolation: the agent ran directly on the host with the harness user',
      facts: {},
      wrap: (spec, harness) => (harness ? harness(spec) : spec),
      stop: async () => {},
    };
  },
};
