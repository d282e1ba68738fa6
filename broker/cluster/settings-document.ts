/**
 * Which settings a cluster shares (`spec/protocol-admin.md` §15; docs/cluster.md "Admin state
 * in a cluster"): the settings document at `<prefix>:settings` is a node's settings minus the
 * node-local keys below. A document read from Redis has its node-local keys ignored, so a
 * peer's ports, files or node id never reach another node.
 *
 * Node-local = what belongs to this process, its host or its disk, and what is read once at
 * start-up to build its servers (restart-only keys): a cluster-wide change of those would need
 * every node restarted, or would point every node at one node's files.
 * Shared = everything else: `auth` (realms, tokens with raw secrets, management tokens,
 * external validators, JWT secret…), `limits`, `back_pressure`, `http_api`, `ack_timeout`,
 * `remote`, `http_publish`.
 */

type Json = Record<string, unknown>;

/** Top-level settings keys that are never shared nor adopted. */
export const NODE_LOCAL_KEYS: readonly string[] = [
  // Identity and the cluster link itself.
  'cluster',
  'node_id',
  // Listeners: ports, hosts and socket.io engine options (read at start-up).
  'port',
  'mqtt',
  'allowed_hosts',
  'cors',
  'ping_interval',
  'ping_timeout',
  'allow_eio3',
  'max_http_buffer_size',
  'per_message_deflate',
  'input_limits',
  'idle_eviction',
  // Files and modules on this node's disk.
  'storage',
  'storage_options',
  'default_ttl',
  'auth_store',
  'namespaces',
  'allow_custom_storage',
];

const LOCAL = new Set(NODE_LOCAL_KEYS);

/** The shared part of a settings object (a new object; values are not copied). */
export function sharedPart(settings: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(settings)) {
    if (!LOCAL.has(key) && value !== undefined) out[key] = value;
  }
  return out;
}

/** The node-local part of a settings object (a new object; values are not copied). */
export function localPart(settings: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(settings)) {
    if (LOCAL.has(key) && value !== undefined) out[key] = value;
  }
  return out;
}

/** Port through which the cluster reads and adopts a node's settings (the settings runtime). */
export interface SharedSettingsPort {
  /**
   * This node's shareable document: launcher defaults ⊕ settings file (env/flag overrides
   * left out), with the live `auth` block (raw secrets included), node-local keys removed.
   */
  document(): Json;
  /**
   * Validates `doc` like a settings file and adopts it: its shared keys replace this node's
   * (the live settings and the auth block; the local settings file is rewritten, the auth
   * store written through), node-local keys stay this node's, env/flag overrides still apply.
   * The auth change has origin `cluster`, so it is not published again.
   * @throws SwitchboardError `SWB_ERR_VALIDATION` when invalid; then nothing changed.
   */
  adopt(doc: Json): void;
}
