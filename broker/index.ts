/**
 * `createBroker(settings)`: the broker's composition root — wiring only.
 *
 * Takes the same object as the settings file (`spec/protocol-admin.md` §12.1), validates it
 * (strict, aliases folded; throws `SwitchboardError` `SWB_ERR_VALIDATION`), and returns a
 * handle that can `listen(port, host)` on its own HTTP server or `attach(httpServer)` to an
 * existing one, plus read-only status. socket.io options follow `spec/protocol-core.md` §1.1.
 */
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Server } from 'socket.io';
import { SwitchboardError } from '../shared/error-catalogue';
import type { Health, Stats } from '../shared/http-api';
import { parseTtlSeconds } from '../shared/duration';
import { Protocol } from '../shared/protocol-events';
import { bootstrapAdminToken } from './auth/admin-bootstrap';
import { AuthState } from './auth/auth-state';
import { requireAdminBearer } from './auth/http-bearer';
import { AuthorizationRequests, DEFAULT_REQUEST_TTL_MS } from './auth/authorization-requests';
import { MemoryNonceStore, type NonceStore } from './auth/nonce-store';
import { watchRevocations } from './auth/session-revocation';
import { TokenValidator } from './auth/token-validator';
import { createManagement } from './admin/create-management';
import { parseSettings } from './config/load-settings';
import { unsupportedKeys, type Settings, type SettingsInput } from './config/settings-schema';
import { AckTracker } from './delivery/ack-tracker';
import { ChunkAssembler } from './delivery/chunk-assembler';
import { Delivery } from './delivery/delivery';
import { QueueCap } from './delivery/queue-cap';
import { Replayer } from './delivery/replay';
import { dispatch } from './handlers/dispatcher';
import type { HandlerContext } from './handlers/handler-context';
import { createHttpApi, forbidden } from './http/http-api';
import { createRealmProvisioning } from './http/realm-provisioning';
import { createLogger, type Logger } from './logging/logger';
import { BrokerMetrics } from './metrics/broker-metrics';
import { sweepIdleRegistrations } from './routing/idle-eviction';
import { RealmDirectory } from './routing/realm-directory';
import { Router } from './routing/router';
import { SubscriptionPersistence } from './routing/subscription-persistence';
import { createStore } from './storage/create-store';
import type { MessageStore, StoredEntry } from './storage/message-store';
import { onConnection } from './transport/connection-lifecycle';
import { PING_INTERVAL_MS, socketIoOptions } from './transport/socket-options';
import type { BrokerServer } from './transport/socket-types';
import { BROKER_VERSION } from './version';

export type { Settings, SettingsInput } from './config/settings-schema';
export { DEFAULT_MAX_HTTP_BUFFER_SIZE } from './config/settings-schema';
export { loadSettingsFile, parseSettings, readSettingsFile } from './config/load-settings';
export { BROKER_VERSION } from './version';
export type { DlqEntry, MessageStore, StoredEntry } from './storage/message-store';

export { PING_INTERVAL_MS, PING_TIMEOUT_MS, socketIoOptions } from './transport/socket-options';

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
}

export interface Broker {
  readonly settings: Settings;
  readonly logger: Logger;
  /** The live `auth` configuration; persistence and management commands go through it. */
  readonly auth: AuthState;
  /** Listens on `port` (default 17352; 0 = any free port) and `host` (default all interfaces). */
  listen(port?: number, host?: string): Promise<{ port: number; host: string }>;
  /** Serves the protocol on an existing HTTP server (only the broker's own paths answered). */
  attach(server: HttpServer): void;
  /** Disconnects every client, stops timers and closes the server it created. */
  close(): Promise<void>;
  getStats(): Stats;
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
}

/**
 * Builds a broker from settings.
 * @throws SwitchboardError `SWB_ERR_VALIDATION` when the settings are invalid.
 */
export function createBroker(
  input: SettingsInput | unknown = {},
  options: BrokerOptions = {},
): Broker {
  const settings = parseSettings(input, options.env ?? process.env);
  const logger = options.logger ?? createLogger();
  for (const key of unsupportedKeys(settings)) {
    logger.warn({ key }, 'settings key accepted but not implemented in this build');
  }
  const startedAt = Date.now();
  const env = options.env ?? process.env;
  // Reported with its `auth.` paths as SWB_ERR_VALIDATION, before anything is opened.
  const auth = new AuthState(settings.auth ?? {});
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
  const store = createStore(settings, options.dataDir ?? process.cwd());
  const io: BrokerServer = new Server(socketIoOptions(settings.max_http_buffer_size));
  const connectionsCurrent = (): number => io.engine?.clientsCount ?? 0;
  const metrics = new BrokerMetrics(
    settings.input_limits.max_event_labels_per_realm,
    connectionsCurrent,
  );
  const realms = new RealmDirectory();
  const acks = new AckTracker({
    delivered: (realm, event) => metrics.messageDelivered(realm, event),
    ackTimeout: (realm) => metrics.ackTimeout(realm),
    exhausted: (msgId, copy, reason) => {
      store.deadLetter(msgId, reason).then(
        (id) => {
          if (id === null) return;
          metrics.messageDeadLettered(copy.realm);
          logger.warn({ id, realm: copy.realm, key: copy.key, reason }, 'dead-lettered');
        },
        (err: unknown) => logger.error({ err, id: msgId }, 'dead-letter move failed'),
      );
    },
  });
  const limits = settings.input_limits;
  const chunks = new ChunkAssembler({
    maxLength: limits.max_chunked_message_length,
    maxPartialPerSocket: limits.max_partial_transfers_per_socket,
    idleTimeoutMs: limits.transfer_idle_timeout_ms,
  });
  const cap = new QueueCap(store, () => settings.limits?.max_queued_per_realm);
  // `local`: socket ids are this node's; a cluster adapter must not relay these packets.
  const delivery = new Delivery(metrics, acks, store, cap, logger, (ids, event, envelope) =>
    io.local.to(ids).emit(event, envelope),
  );
  const replayer = new Replayer(store, acks, delivery, logger);
  const router = new Router(realms, delivery);
  const persistence = new SubscriptionPersistence(store, logger);
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
  const ctx: HandlerContext = {
    settings,
    auth,
    tokens: new TokenValidator(auth, logger),
    nonces: options.nonces ?? new MemoryNonceStore(),
    proofsNotBefore: options.nonces ? 0 : startedAt,
    authRequests,
    realms,
    router,
    delivery,
    acks,
    chunks,
    store,
    replayer,
    persistence,
    metrics,
    logger,
    management: createManagement({
      settings,
      auth,
      realms,
      store,
      replayer,
      logger,
      metrics,
      sockets: () => io.of('/').sockets.values(),
      getStats: () => getStats(),
      purgeRequests: (realm) => authRequests.dropRealm(realm),
    }),
    pingIntervalMs: PING_INTERVAL_MS,
    halfOpenMarginMs: options.halfOpenMarginMs ?? 2_000,
    dispatch: (socket, event, raw, ack) => dispatch(ctx, socket, event, raw, ack),
  };
  io.on('connection', (socket) => onConnection(ctx, socket));
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
      };
    }
    if (settings.node_id) out.cluster_node_id = settings.node_id;
    return out;
  };
  const health = (): Health => ({
    status: 'ok',
    version: BROKER_VERSION,
    uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
    node_id: settings.node_id ?? null,
  });
  const adminApi = requireAdminBearer(
    createHttpApi({
      settings: () => settings,
      health,
      stats: getStats,
      metrics: () => metrics.render(),
      listDlq: (realm) => store.listDlq(realm),
      onError: (err) => logger.error({ err }, 'metrics rendering failed'),
    }),
    auth,
    () => settings,
  );
  const provisioning = createRealmProvisioning({ settings: () => settings, auth, logger });
  const httpApi = (req: IncomingMessage, res: ServerResponse): boolean =>
    provisioning(req, res) || adminApi(req, res);

  const sweep = () => sweepIdleRegistrations(realms, settings.idle_eviction.ttl_ms);
  let sweepTimer: NodeJS.Timeout | null = null;
  if (settings.idle_eviction.enabled) {
    sweepTimer = setInterval(() => {
      const evicted = sweep();
      if (evicted > 0) logger.info({ evicted }, 'idle registrations evicted');
    }, settings.idle_eviction.interval_ms);
    sweepTimer.unref();
  }

  let ownServer: HttpServer | null = null;
  const rawSockets = new Set<Socket>();
  let bound: { port: number; host: string } | null = null;

  return {
    settings,
    logger,
    auth,
    async listen(port = Protocol.DEFAULT_PORT, host = '0.0.0.0') {
      if (ownServer) throw new SwitchboardError('SWB_ERR_INTERNAL', 'Broker is already listening');
      await restored;
      const server = createServer((req, res) => {
        if (!httpApi(req, res)) forbidden(res);
      });
      server.on('connection', (sock) => {
        rawSockets.add(sock);
        sock.once('close', () => rawSockets.delete(sock));
      });
      io.attach(server);
      await new Promise<void>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException) => {
          server.off('listening', onListening);
          reject(
            err.code === 'EADDRINUSE'
              ? new SwitchboardError('SWB_ERR_PORT_IN_USE', `Port ${port} is already in use`)
              : err,
          );
        };
        const onListening = () => {
          server.off('error', onError);
          resolve();
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(port, host);
      });
      ownServer = server;
      const address = server.address() as AddressInfo;
      bound = { port: address.port, host };
      logger.info({ port: address.port, host, version: BROKER_VERSION }, 'broker listening');
      return bound;
    },
    attach(server) {
      io.attach(server);
      // Like socket.io itself: take over 'request' and pass on what is not ours.
      const previous = server.listeners('request') as Array<(...args: unknown[]) => void>;
      server.removeAllListeners('request');
      server.on('request', (req, res) => {
        if (req.url?.startsWith('/socket.io/') || !httpApi(req, res)) {
          for (const listener of previous) listener.call(server, req, res);
        }
      });
    },
    async close() {
      if (sweepTimer) clearInterval(sweepTimer);
      stopRevocations();
      ctx.management.lifecycle.stop();
      acks.close();
      chunks.close();
      io.disconnectSockets(true);
      if (ownServer) {
        // Clients got their disconnect packet; a silent (half-open) peer would hold a
        // WebSocket close handshake for 30 s, so the connections are dropped instead.
        setImmediate(() => {
          for (const sock of rawSockets) sock.destroy();
        });
        await new Promise<void>((resolve) => io.close(() => resolve()));
        ownServer = null;
      } else {
        // Attached to someone else's server: stop our engine, leave their server running.
        io.engine?.close();
      }
      bound = null;
      await store.close();
    },
    getStats,
    sweepIdleRegistrations: sweep,
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
    }),
    store,
    replayDlq: (msgId, realm) => ctx.management.replayDlq(msgId, realm),
  };
}
