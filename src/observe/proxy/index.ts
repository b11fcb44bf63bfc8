export {
  type AllowDecision,
  type AllowEntry,
  matchAllow,
  normalizeHost,
  parseAllowEntry,
  parseAllowList,
} from './allow-list.js';
export {
  type BridgeSpawnOptions,
  bridgeBwrapArgs,
  bridgeScriptPath,
  bridgeSpawn,
  DNS_SOCKET_NAME,
  PROXY_SOCKET_NAME,
  proxyEnv,
  SANDBOX_BRIDGE_DIR,
} from './bridge-spawn.js';
export { DnsResponder, type DnsResponderAddress, type DnsResponderOptions } from './dns-responder.js';
export type { EgressMode } from './egress-policy.js';
export { EgressProxy, type EgressProxyAddress, type EgressProxyOptions } from './egress-proxy.js';
export { type HostsMap, parseHostsMap } from './hosts-map.js';
export type { RecordListener } from './record-log.js';
