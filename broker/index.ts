/**
 * `createBroker(settings)`: the broker's composition root — wiring only.
 *
 * Takes the same object as the settings file (`spec/protocol-admin.md` §12.1), validates it
 * (strict, aliases folded; throws `SwitchboardError` `SWB_ERR_VALIDATION`), and returns a
 * handle that can `listen(port, host)` on its own HTTP server or `attach(httpServer)` to an
 * existing one, plus read-only status. socket.io options follow `spec/protocol-core.md` §1.1.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { Server } from 'socket.io';
import type { Health, Stats } from '../shared/http-api';
import { parseTtlSeconds } from '../shared/duration';
import { Protocol, ProtocolErrorCode, ServerEvent } from '../shared/protocol-events';
import { bootstrapAdminToken } from './auth/admin-bootstrap';
import type { AuthState } from './auth/auth-state';
import { requireAdminBearer } from './auth/http-bearer';
import { AuthorizationRequests, DEFAULT_REQUEST_TTL_MS } from './auth/authorization-requests';
import type { NonceStore } from './auth/nonce-store';
import { watchRevocations } from './auth/session-revocation';
import { TokenValidator } from './auth/token-validator';
import { createManagement } from './admin/create-management';
import { createSettingsRuntime } from './config/settings-runtime';
import { unsupportedKeys, type Settings, type SettingsInput } from './config/settings-schema';
import { AckTracker } from './delivery/ack-tracker';
import { ChunkAssembler } from './delivery/chunk-assembler';
import { Delivery } from './delivery/delivery';
import { DurableExpiry } from './delivery/durable-expiry';
import { QueueLedger, queueStats } from './delivery/queue-ledger';
import { Replayer } from './delivery/replay';
import { dispatch } from './handlers/dispatcher';
import type { HandlerContext } from './handlers/handler-context';
import { createHttpApi, forbidden } from './http/http-api';
import { createRealmProvisioning } from './http/realm-provisioning';
import { BackPressure } from './limits/back-pressure';
import { LimitMetrics } from './limits/limit-metrics';
import { LimitsService } from './limits/limits-service';
import { createLogger, type Logger } from './logging/logger';
import { NamespaceLoader } from './namespaces/namespace-loader';
import { attachRemote } from './namespaces/remote/remote-namespace';
import { TicketStore } from './namespaces/remote/ticket-store';
import { BrokerMetrics } from './metrics/broker-metrics';
import { createMqttListener } from './mqtt/create-mqtt-listener';
import { IdleSweeper, startIdleSweep } from './routing/idle-eviction';
import { RealmDirectory } from './routing/realm-directory';
import { Router } from './routing/router';
import { SubscriptionPersistence } from './routing/subscription-persistence';
import { createStore } from './storage/create-store';
import type { MessageStore, StoredEntry } from './storage/message-store';
import { onConnection } from './transport/connection-lifecycle';
import { HttpHost, type OwnServer } from './transport/http-host';
import { RequestGuard } from './transport/request-guard';
import { socketIoOptions } from './transport/socket-options';
import type { BrokerServer } from './transport/socket-types';
import { BROKER_VERSION } from './version';

export type { Settings, SettingsInput } from './config/settings-schema';
export { DEFAULT_MAX_HTTP_BUFFER_SIZE } from './config/settings-schema';
export { loadSettingsFile, parseSettings, readSettingsFile } from './config/load-settings';
export { BROKER_VERSION } from './version';
export type { DlqEntry, MessageStore, StoredEntry } from './storage/message-store';

export {
  PING_INTERVAL_MS,
  PING_TIMEOUT_MS,
  STOCK_SOCKET_SETTINGS,
  socketIoOptions,
} from './transport/socket-options';

export { AuthState } from './auth/auth-state';
export type { NonceStore } from './auth/nonce-store';

export interface BrokerOptions {
  logger?: Logger;
  /**
   * Environment read for `TYO_MQ_MAX_HTTP_BUFFER_SIZE`, `TYO_MQ_ENV_FILE`, the admin token
   * variable (`spec/protocol-admin.md` §5; a generated token is set here); default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Extra silence (ms) past the ping interval before a socket counts as half-open; 2,000. */
  halfOpenMarginMs?: number;
  /** Directory that relative storage file names resolve against; default the working dir. */
  dataDir?: string;
  /**
   * Replay protection for manager proofs (§6.4); default in memory, in which case proofs
   * timestamped before the broker was created are refused.
   */
  nonces?: NonceStore;
  /**
   * Settings file to load (created when missing), watch and persist runtime changes to
   * (`spec/protocol-admin.md` §12.3–§12.4). The settings argument is then the layer under it.
   */
  settingsFile?: string;
  /** Settings laid over the file (CLI flags); `TYO_MQ_*` variables are added from `env`. */
  settingsOverrides?: Record<string, unknown>;
  /** Watch the settings file for edits; default true. */
  watchSettings?: boolean;
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

export interface Broker {
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
  /** Disconnects every client, stops timers and closes the server it created. */
  close(): Promise<void>;
  getStats(): Stats;
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
   * entry, or null when no such DLQ entry exists (in `realm`, when given).
   */
  replayDlq(msgId: string, realm?: string): Promise<StoredEntry | null>;
  /**
   * Re-reads the settings file (`reload_settings`, SIGHUP) and applies it; resolves with the new
   * settings. @throws SwitchboardError `SWB_ERR_VALIDATION` (400) "No settings file is being
   * watched" without a file, or naming the file's errors (the old settings then stay).
   */
  reloadSettings(): Promise<Settings>;
  /** Online copy of the auth store to `dest` (§14); false when no store is active. */
  backupAuthStore(dest: string): Promise<boolean>;
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

/**
 * Builds a broker from settings.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` when the settings are invalid.
 */
export function createBroker(
  input: SettingsInput | unknown = {},
  options: BrokerOptions = {},
): Broker {
  const logger = options.logger ?? createLogger();
  const runtime = createSettingsRuntime({
    input,
    env: options.env ?? process.env,
    logger,
    dataDir: options.dataDir ?? process.cwd(),
    settingsFile: options.settingsFile,
    overrides: options.settingsOverrides,
    watch: options.watchSettings,
  });
  const live = runtime.live;
  // Start-up values (store, engine, timers); handlers read `live.current` at each check.
  const settings = live.current;
  for (const key of unsupportedKeys(settings)) {
    logger.warn({ key }, 'settings key accepted but not implemented in this build');
  }
  const startedAt = Date.now();
  const env = options.env ?? process.env;
  // One live auth config, persisted by the settings runtime (file / auth store).
  const auth = runtime.auth;
  bootstrapAdminToken(auth, logger, env);
  // §5 "after every settings change": deferred, so listeners see commits in order.
  auth.onChange((_next, _prev, origin) => {
    if (origin === 'bootstrap') return;
    queueMicrotask(() => {
      try {
        bootstrapAdminToken(auth, logger, env);
      } catch (err) {
        logger.error({ err }, 'admin token bootstrap failed');
      }
    });
  });
  // The store opens first: a corrupt file must stop the broker before it serves anyone.
  let store: MessageStore;
  try {
    store = createStore(settings, options.dataDir ?? process.cwd());
  } catch (err) {
    void runtime.close();
    throw err;
  }
  const guard = new RequestGuard(settings, () => auth.enabled);
  const io: BrokerServer = new Server({
    ...socketIoOptions(settings.max_http_buffer_size, settings),
    allowRequest: guard.allowRequest,
  });
  const connectionsCurrent = (): number => io.engine?.clientsCount ?? 0;
  const metrics = new BrokerMetrics(
    settings.input_limits.max_event_labels_per_realm,
    connectionsCurrent,
  );
  const realms = new RealmDirectory();
  // Read from the live settings so hot reloads apply (re-read at most once a second, §11.1).
  const limitMetrics = new LimitMetrics(metrics.registry);
  const rateLimits = new LimitsService(
    () => live.current.limits,
    realms,
    limitMetrics,
    logger,
    Date.now,
    settings.max_http_buffer_size,
  );
  const ledger = new QueueLedger(
    store,
    {
      perRealm: (realm) => rateLimits.config.value('max_queued_per_realm', realm),
      perConsumer: (realm) => rateLimits.config.value('max_queued_per_consumer', realm),
    },
    logger,
  );
  metrics.watchQueues(ledger);
  const acks = new AckTracker({
    delivered: (realm, event) => metrics.messageDelivered(realm, event),
    ackTimeout: (realm) => metrics.ackTimeout(realm),
    exhausted: (msgId, copy, reason) => {
      const { key, consumer } = copy.stored;
      ledger
        .deadLetter(msgId, reason, copy.realm, key, consumer)
        .then((id) => {
          if (id === null) return;
          metrics.messageDeadLettered(copy.realm);
          logger.warn({ id, realm: copy.realm, key: copy.key, reason }, 'dead-lettered');
        })
        .catch((err: unknown) => logger.error({ err, id: msgId }, 'dead-letter move failed'));
    },
    attempted: (msgId, n) => {
      store.setAttempts(msgId, n).catch((err: unknown) => {
        logger.error({ err, id: msgId }, 'attempt count not stored');
      });
    },
  });
  const limits = settings.input_limits;
  const chunks = new ChunkAssembler(
    {
      maxLength: limits.max_chunked_message_length,
      maxPartialPerSocket: limits.max_partial_transfers_per_socket,
      idleTimeoutMs: limits.transfer_idle_timeout_ms,
      deadlineMs: limits.transfer_deadline_ms,
      maxHeldBytes: limits.max_reassembly_bytes,
    },
    (socketId, transferId, reason) => {
      logger.warn({ socket: socketId, transferId, reason }, 'partial chunked message dropped');
      if (reason === 'deadline') {
        io.sockets.sockets.get(socketId)?.emit(ServerEvent.ERROR, {
          message: chunks.deadlineReason(transferId),
          code: ProtocolErrorCode.LIMIT_EXCEEDED,
        });
      }
    },
  );
  const remoteTickets = new TicketStore();
  const backPressure = new BackPressure(() => live.current.back_pressure, limitMetrics, logger);
  // `local`: socket ids are this node's; a cluster adapter must not relay these packets.
  const delivery = new Delivery(
    metrics,
    acks,
    store,
    ledger,
    logger,
    (ids, event, envelope) => io.local.to(ids).emit(event, envelope),
    backPressure,
  );
  const replayer = new Replayer(store, acks, delivery, ledger, logger);
  const router = new Router(realms, delivery);
  const persistence = new SubscriptionPersistence(store, logger);
  const expiry = new DurableExpiry(
    realms,
    ledger,
    persistence,
    logger,
    rateLimits.config.value('expire_durable_after_ms'),
  );
  expiry.start();
  // Durable subscriptions come back before the first client is served.
  const restored = persistence.restore(realms).then(
    (n) => {
      if (n > 0) logger.info({ subscriptions: n }, 'durable subscriptions restored');
    },
    (err: unknown) => logger.error({ err }, 'durable subscriptions not restored'),
  );
  const limitsBlock = (settings.limits ?? {}) as Record<string, unknown>;
  const authRequests = new AuthorizationRequests({
    maxPending: () => {
      const max = limitsBlock.max_pending_authorization_requests;
      return limitsBlock.enabled !== false && typeof max === 'number' ? max : undefined;
    },
    ttlMs: () => {
      const seconds = parseTtlSeconds(auth.config.request_ttl);
      return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : DEFAULT_REQUEST_TTL_MS;
    },
    tokenExists: (hash) => auth.tokenByHash(hash) !== undefined,
    nodeId: settings.node_id ?? null,
  });
  /** DLQ replay (`spec/protocol-core.md` §10.5): re-queued, counted, then nudged to a live consumer. */
  const replayDlq = async (msgId: string, realm?: string): Promise<StoredEntry | null> => {
    const entry = await store.replayDlq(msgId, realm);
    if (!entry) return null;
    ledger.added(entry.realm, entry.event, entry.consumer);
    metrics.messageQueued(entry.realm);
    const registry = realms.get(entry.realm);
    for (const record of registry?.subscriptions.get(entry.event)?.values() ?? []) {
      if (
        record.consumerId === entry.consumer &&
        registry!.consumers.get(record.consumer)?.online
      ) {
        replayer
          .replay(registry!, record)
          .catch((err: unknown) => logger.error({ err, id: msgId }, 'DLQ replay failed'));
      }
    }
    return entry;
  };
  const ctx: HandlerContext = {
    get settings() {
      return live.current;
    },
    auth,
    tokens: new TokenValidator(auth, logger),
    nonces: options.nonces ?? runtime.nonces,
    // In-memory nonces die with the process: proofs older than its start are refused then.
    get proofsNotBefore() {
      return options.nonces || runtime.authStoreFile() ? 0 : startedAt;
    },
    authRequests,
    realms,
    router,
    delivery,
    acks,
    chunks,
    store,
    ledger,
    replayer,
    persistence,
    metrics,
    logger,
    management: createManagement({
      settings: () => live.current,
      auth,
      realms,
      store,
      replayer,
      logger,
      metrics,
      sockets: () => io.of('/').sockets.values(),
      getStats: () => getStats(),
      purgeRequests: (realm) => authRequests.dropRealm(realm),
      // `reload_settings` answers 400 "No settings file is being watched" without one (§8.2).
      reloadSettings: options.settingsFile ? () => runtime.reload() : undefined,
      replayDlq,
    }),
    limits: rateLimits,
    remoteTickets,
    pingIntervalMs: settings.ping_interval,
    halfOpenMarginMs: options.halfOpenMarginMs ?? 2_000,
    dispatch: (socket, event, raw, ack) => dispatch(ctx, socket, event, raw, ack),
  };
  const mqtt = createMqttListener(auth, ctx.tokens, router, metrics, logger);
  // §16: the bundled `/remote`, then the custom namespaces of the settings.
  attachRemote(io, remoteTickets, () => live.current.remote, logger);
  const namespaceLoader = new NamespaceLoader(io, () => live.current, logger);
  const namespacesReady = namespaceLoader.sync();
  live.onChange(() => void namespaceLoader.sync());
  io.on('connection', (socket) => {
    if (rateLimits.admitConnection(socket)) onConnection(ctx, socket);
  });
  const stopRevocations = watchRevocations(auth, () => io.of('/').sockets.values(), logger);

  const getStats = (): Stats => {
    const out: Stats = { realms: {}, connections_current: connectionsCurrent() };
    for (const realm of realms.values()) {
      const count = <T extends { online: boolean }>(m: Map<string, T>) => {
        let online = 0;
        for (const e of m.values()) if (e.online) online++;
        return { total: m.size, online };
      };
      out.realms[realm.name] = {
        producers: count(realm.producers),
        consumers: count(realm.consumers),
        subscriptions: realm.subscriptions.size,
        ...queueStats(ledger, realm.name),
      };
    }
    // Realms that hold only stored copies (e.g. every subscriber expired) still show them.
    for (const [name] of ledger.realmDepths()) {
      if (out.realms[name] || ledger.depth(name) === 0) continue;
      out.realms[name] = {
        producers: { total: 0, online: 0 },
        consumers: { total: 0, online: 0 },
        subscriptions: 0,
        ...queueStats(ledger, name),
      };
    }
    if (live.current.node_id) out.cluster_node_id = live.current.node_id;
    return out;
  };
  const health = (): Health => ({
    status: 'ok',
    version: BROKER_VERSION,
    uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
    node_id: live.current.node_id ?? null,
  });
  const adminApi = requireAdminBearer(
    createHttpApi({
      settings: () => live.current,
      health,
      stats: getStats,
      metrics: () => metrics.render(),
      listDlq: (realm) => store.listDlq(realm),
      hostAllowed: (req) => guard.hostAllowed(req.headers.host),
      onError: (err) => logger.error({ err }, 'HTTP API request failed'),
    }),
    auth,
    () => live.current,
  );
  const provisioning = createRealmProvisioning({ settings: () => live.current, auth, logger });
  const httpApi = (req: IncomingMessage, res: ServerResponse): boolean =>
    provisioning(req, res) || adminApi(req, res);

  const sweeper = new IdleSweeper(realms, settings.idle_eviction.ttl_ms);
  const stopSweep = settings.idle_eviction.enabled
    ? startIdleSweep(sweeper, settings.idle_eviction.interval_ms, (evicted) => {
        if (evicted > 0) logger.info({ evicted }, 'idle registrations evicted');
      })
    : () => {};

  const host = new HttpHost(io, httpApi, forbidden);
  let ownServer: OwnServer | null = null;
  let bound: { port: number; host: string } | null = null;

  return {
    get settings() {
      return live.current;
    },
    auth,
    logger,
    async listen(port = Protocol.DEFAULT_PORT, bindHost = '0.0.0.0') {
      await restored;
      await namespacesReady;
      const server = await host.listen(port, bindHost);
      ownServer = server;
      guard.bound(bindHost);
      if (live.current.mqtt.enabled) await mqtt.listen(live.current.mqtt, bindHost);
      bound = { port: server.port, host: bindHost };
      logger.info(
        { port: server.port, host: bindHost, version: BROKER_VERSION },
        'broker listening',
      );
      return bound;
    },
    attach(server) {
      host.attach(server);
    },
    async close() {
      stopSweep();
      stopRevocations();
      ctx.management.lifecycle.stop();
      acks.close();
      ledger.close();
      expiry.stop();
      chunks.close();
      remoteTickets.close();
      io.disconnectSockets(true);
      await mqtt.close();
      if (ownServer) {
        await ownServer.close();
        ownServer = null;
      } else {
        // Attached to someone else's server: stop our engine, hand their server back.
        io.engine?.close();
      }
      host.detach();
      bound = null;
      await runtime.close();
      await store.close();
    },
    getStats,
    expireDurableSubscriptions: (now) => expiry.sweep(now),
    sweepIdleRegistrations: () => sweeper.sweepAll(),
    status: () => ({
      listening: bound !== null,
      port: bound?.port ?? null,
      host: bound?.host ?? null,
      uptimeMs: Date.now() - startedAt,
      version: BROKER_VERSION,
      produced: metrics.totals.produced,
      delivered: metrics.totals.delivered,
      connectionsTotal: metrics.totals.connections,
      connectionsCurrent: connectionsCurrent(),
      mqttPort: mqtt.bound?.port ?? null,
      mqttWsPort: mqtt.bound?.wsPort ?? null,
    }),
    store,
    replayDlq,
    reloadSettings: () => runtime.reload(),
    backupAuthStore: (dest) => runtime.backupAuthStore(dest),
    namespaces: namespaceLoader.apis,
    syncNamespaces: () => namespaceLoader.sync(),
    namespaceModules: () => namespaceLoader.describe(),
    bufferedBytes(socketId) {
      const socket = io.of('/').sockets.get(socketId);
      return socket ? backPressure.bufferedBytes(socket) : null;
    },
  };
}
