/**
 * The public shapes of an embedded broker: the options `createBroker` takes, the handle it
 * returns and its read-only status (times in ms).
 */
import type { PushOptions } from './extensions/push/push-wiring';
import type { Server as HttpServer } from 'node:http';
import type { Readiness, Stats } from '../shared/http-api';
import type { AuthState } from './auth/auth-state';
import type { NonceStore } from './auth/nonce-store';
import type { RequestStore } from './auth/request-store';
import type { Settings } from './config/settings-schema';
import type { BrokerHooks, EmbeddingApi } from './policy/embedding-types';
import type { Logger } from './logging/logger';
import type { MessageStore, StoredEntry } from './storage/message-store';
import type { BackupResult } from './storage/store-backup';
import type { DrainOptions, DrainReport } from './transport/graceful-drain';

export type { DrainOptions, DrainReport };

import type { SseHistory } from './http-publish/sse-history';

export interface BrokerOptions {
  logger?: Logger;
  /**
   * Environment read for `TYO_MQ_MAX_HTTP_BUFFER_SIZE`, `TYO_MQ_ENV_FILE`, the admin token
   * variable (`spec/protocol-admin.md` §5; a generated token is set here); default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Extra silence (ms) past the ping interval before a socket counts as half-open; 2,000. */
  halfOpenMarginMs?: number;
  /**
   * Total time (ms) of one external token validator call, connect to last byte; default
   * `VALIDATOR_TIMEOUT_MS` (5,000, `spec/protocol-admin.md` §4.4). Tests shorten it.
   */
  validatorTimeoutMs?: number;
  /** Directory that relative storage file names resolve against; default the working dir. */
  dataDir?: string;
  /**
   * Replay protection for manager proofs (§6.4); default in memory, in which case proofs
   * timestamped before the broker was created are refused.
   */
  nonces?: NonceStore;
  /**
   * Where authorization requests are kept between runs (issue 22 item 1); default the SQLite
   * auth store when one is active, else none (requests then live as long as the process).
   * Pass one `MemoryRequestStore` to successive brokers to keep them in memory.
   */
  requests?: RequestStore;
  /**
   * Settings file to load (created when missing), watch and persist runtime changes to
   * (`spec/protocol-admin.md` §12.3–§12.4). The settings argument is then the layer under it.
   */
  settingsFile?: string;
  /** Settings laid over the file (CLI flags); `TYO_MQ_*` variables are added from `env`. */
  settingsOverrides?: Record<string, unknown>;
  /** Watch the settings file for edits; default true. */
  watchSettings?: boolean;
  /**
   * Policy hooks for socket.io and MQTT clients (docs/embedding.md); also assignable later as
   * properties of the handle.
   */
  hooks?: BrokerHooks;
  /**
   * aedes' heartbeat, ms: wills restored from a previous run whose client did not come back are
   * published by a sweep every 4 heartbeats (docs/mqtt.md); default 60,000. Tests shorten it.
   */
  mqttHeartbeatMs?: number;
  /**
   * Push wake test hooks and transport options (`spec/protocol-extensions.md` §6.9); push
   * itself is configured from `env` (`TYO_MQ_PUSH_*`, §6.1).
   */
  push?: PushOptions;
}

/** Read-only view of a running broker. Times in ms. */
export interface BrokerStatus {
  listening: boolean;
  port: number | null;
  host: string | null;
  uptimeMs: number;
  version: string;
  produced: number;
  delivered: number;
  connectionsTotal: number;
  connectionsCurrent: number;
  /** Bound MQTT TCP/TLS port while the MQTT listener runs (`mqtt.enabled`), else null. */
  mqttPort: number | null;
  /** Bound MQTT-over-WebSocket port (`mqtt.ws_port`), else null. */
  mqttWsPort: number | null;
}

/**
 * The handle `createBroker` returns. With `EmbeddingApi` (docs/embedding.md): in-process
 * `publish`/`subscribe`, the policy hooks as properties, and typed events via `on`/`once`/`off`.
 */
export interface Broker extends EmbeddingApi {
  /**
   * The settings in force (replaced whole by a reload; read it at each use). Its `auth` is the
   * block as loaded; the live, persisted auth configuration is `auth`.
   */
  readonly settings: Settings;
  /** The live `auth` configuration; persisted to the settings file / auth store on change. */
  readonly auth: AuthState;
  readonly logger: Logger;
  /**
   * Listens on `port` (default 17352; 0 = any free port) and `host` (default all interfaces);
   * with `mqtt.enabled` also starts the MQTT listener (docs/mqtt.md; port in `status()`).
   * @throws the bind error of either listener (then call `close()`).
   */
  listen(port?: number, host?: string): Promise<{ port: number; host: string }>;
  /** Serves the protocol on an existing HTTP server (only the broker's own paths answered). */
  attach(server: HttpServer): void;
  /**
   * Stops now, boundedly: refuses new connections, lets the work in progress finish, closes
   * every transport without socket.io's DISCONNECT (clients reconnect), closes the server it
   * created and the store (pending writes committed). `options.timeoutMs` bounds it (default
   * `shutdown.timeout_ms`, 10,000). During a `drain()` it ends the grace at once and resolves
   * with that drain. Never throws for work cut short (logged with counts).
   */
  close(options?: Pick<DrainOptions, 'timeoutMs' | 'reason'>): Promise<void>;
  /**
   * Graceful stop (docs/http-api.md "Drain"): `readiness()` and `GET /ready` answer 503
   * (`draining: true`) at once, new connections are still accepted for `options.graceMs`
   * (default `shutdown.grace_ms`, 0), then the broker stops as `close()` does within
   * `options.timeoutMs` (default `shutdown.timeout_ms`). Resolves with what it did. Calling it
   * again joins the stop under way.
   */
  drain(options?: DrainOptions): Promise<DrainReport>;
  /**
   * `GET /ready`'s document (docs/http-api.md "GET /ready"): ready only when the listeners are
   * bound, the store is open and accepts new copies, and (clustered) Redis is up and the inbox
   * caught up, and no stop has begun. Cheap: cached readings.
   */
  readiness(): Readiness;
  /**
   * Resolves once the inbound-event work in progress has settled — durable writes awaiting
   * their commit, publisher confirms, `ACK_OK`s (and any started meanwhile) — or after
   * `timeoutMs` (default 5,000 ms); resolves with how many were still pending then. Never
   * rejects. Embedders and tests wait on it instead of a fixed sleep.
   */
  settled(timeoutMs?: number): Promise<number>;
  getStats(): Stats;
  /**
   * HTTP publish and SSE subscribe (`spec/protocol-extensions.md` §5): open streams and the
   * SSE history (tests seed it, R74).
   */
  readonly httpPublish: { streams(): number; readonly history: SseHistory };
  /**
   * One pass of the durable-subscription expiry (`limits.expire_durable_after_ms`) as of `now`
   * (epoch ms, default the current time); resolves with the subscriptions removed (0 when off).
   */
  expireDurableSubscriptions(now?: number): Promise<number>;
  /** One idle-eviction pass (§15); returns the number of entries evicted. */
  sweepIdleRegistrations(): number;
  status(): BrokerStatus;
  /** The message store (durable copies and DLQ), for management and tests. */
  readonly store: MessageStore;
  /**
   * Moves a DLQ entry back to its consumer's queue (`spec/protocol-core.md` §10.5) and replays
   * it at once when a matching subscription has a live consumer. Resolves with the re-queued
   * entry — under a new message id, as `dlq_replay` reports it (docs/management.md) — or null
   * when no such DLQ entry exists (in `realm`, when given).
   */
  replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null>;
  /**
   * Re-reads the settings file (`reload_settings`, SIGHUP) and applies it; resolves with the new
   * settings. @throws SwitchboardError `SWB_ERR_VALIDATION` (400) "No settings file is being
   * watched" without a file, or naming the file's errors (the old settings then stay).
   */
  reloadSettings(): Promise<Settings>;
  /**
   * Online copy of the auth store to the new file `dest` (§14; its directory is created when
   * missing); false when no store is active.
   * @throws SwitchboardError `SWB_ERR_CONFLICT` when `dest` exists, `SWB_ERR_STORAGE`.
   */
  backupAuthStore(dest: string): Promise<boolean>;
  /**
   * Online backup of the SQLite stores while the broker runs (docs/backup.md): writes
   * `messages-<stamp>.sqlite` (the message store) and, with an auth store, `auth-<stamp>.sqlite`
   * into the existing directory `destDir` (absolute, on this host); each a consistent snapshot,
   * mode 0600, fsynced. Resolves with each file's `{name, path, bytes, source}` and the time
   * taken (`elapsed_ms`). The `backup_store` management command runs it.
   * @throws SwitchboardError `SWB_ERR_VALIDATION` (relative, missing or not a directory),
   *   `SWB_ERR_NOT_SUPPORTED` (memory or Redis message store), `SWB_ERR_CONFLICT` (a file of
   *   that name exists), `SWB_ERR_STORAGE` (a copy failed; none of the files is left).
   */
  backup(destDir: string): Promise<BackupResult>;
  /** Apis returned by custom namespace modules, by namespace name (§16.1). */
  readonly namespaces: Record<string, unknown>;
  /**
   * Attaches namespaces newly listed in the settings (call after a settings change); resolves
   * with their names. Never rejects: a failing module is logged and skipped.
   */
  syncNamespaces(): Promise<string[]>;
  /** `get`'s namespace view (§16.1): `{"/remote": {module: "built-in"}, "<name>": {module}}`. */
  namespaceModules(): Record<string, { module: string }>;
  /** Bytes queued for writing to a `/` socket (back-pressure's measure), or null if unknown. */
  bufferedBytes(socketId: string): number | null;
}
