export { agentCacheDir, agentInstallDir, cachedBinPath, installedVersion } from './agent-cache.js';
export { type InstallOptions, type InstallResult, installAgent } from './install-agent.js';
export { type InstalledAgent, installedAgents } from './installed-agents.js';
export { type ResolvedBin, type ResolveOptions, resolveAgentBin } from './resolve-bin.js';
export {
  formatVerification,
  readVerification,
  recordVerification,
  type Verification,
  type VerificationState,
  verificationsDir,
} from './verification-record.js';
