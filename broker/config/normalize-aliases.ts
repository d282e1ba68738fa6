/**
 * Folds the camelCase and legacy aliases of tyo-mq settings into their canonical snake_case
 * keys before validation, so the strict schema sees one spelling per option.
 *
 * Source: `spec/protocol-admin.md` §12.1 (`store`, `storageOptions`, `httpApi`…) and
 * `spec/protocol-core.md` §15 (`ttlMs`, `intervalMs`). A canonical key wins over its alias.
 */
import { CLUSTER_ALIASES } from '../cluster/cluster-schema';

type Json = Record<string, unknown>;

const TOP_LEVEL: Record<string, string> = {
  store: 'storage',
  storageOptions: 'storage_options',
  httpApi: 'http_api',
  httpPublish: 'http_publish',
  idleEviction: 'idle_eviction',
  ackTimeout: 'ack_timeout',
  defaultTtl: 'default_ttl',
  authStore: 'auth_store',
  nodeId: 'node_id',
  allowedHosts: 'allowed_hosts',
  pingInterval: 'ping_interval',
  pingTimeout: 'ping_timeout',
  allowEIO3: 'allow_eio3',
  allowEio3: 'allow_eio3',
  maxHttpBufferSize: 'max_http_buffer_size',
};
const NESTED: Record<string, Record<string, string>> = {
  idle_eviction: { ttlMs: 'ttl_ms', intervalMs: 'interval_ms' },
  http_api: { metricsAuth: 'metrics_auth', maxResponseBytes: 'max_response_bytes' },
  storage_options: {
    file: 'filename',
    path: 'filename',
    defaultTtl: 'default_ttl',
    maxBatchRows: 'max_batch_rows',
    commitDelayMs: 'commit_delay_ms',
    minFreeBytes: 'min_free_bytes',
    minFreePercent: 'min_free_percent',
    connectTimeout: 'connect_timeout',
    fallbackFilename: 'fallback_filename',
    fallback_path: 'fallback_filename',
    fallbackPath: 'fallback_filename',
    probeTimeout: 'probe_timeout',
  },
  limits: { maxQueuedPerRealm: 'max_queued_per_realm' },
  cluster: CLUSTER_ALIASES,
};

function fold(obj: Json, aliases: Record<string, string>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    const canonical = aliases[k];
    if (canonical === undefined) out[k] = v;
    else if (!(canonical in obj)) out[canonical] = v;
  }
  return out;
}

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns a copy of `input` with aliases folded; non-objects are returned unchanged. */
export function normalizeSettingsAliases(input: unknown): unknown {
  if (!isObject(input)) return input;
  const top = fold(input, TOP_LEVEL);
  for (const [key, aliases] of Object.entries(NESTED)) {
    const nested = top[key];
    if (isObject(nested)) top[key] = fold(nested, aliases);
  }
  return top;
}
