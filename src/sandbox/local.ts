import type { Sandbox, SandboxContext, SandboxSession } from './types.js';

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
  async start(ctx: SandboxContext): Promise<SandboxSession> {
    return {
      kind: 'local',
      isolated: false,
      version: 'host',
      detail: 'no isolation: the agent ran directly on the host with the harness user',
      facts: {},
      // On the host the wrapper finds the proxy's sockets where the harness made them.
      wrap: (spec, harness) => (harness && ctx.proxyDir ? harness(spec, ctx.proxyDir) : spec),
      stop: async () => {},
    };
  },
};
