/**
 * `createBroker(settings)`: the broker's composition root — wiring only.
 *
 * Takes the same object as the settings file (`spec/protocol-admin.md` §12.1), validates it
 * (strict, aliases folded; throws `SwitchboardError` `SWB_ERR_VALIDATION`), and returns a
 * handle that can `listen(port, host)` on its own HTTP server or `attach(httpServer)` to an
 * existing one, plus read-only status. socket.io options follow `spec/protocol-core.md` §1.1.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Server } from 'socket.io';
import { SwitchboardError } from '../shared/error-catalogue';
import type { Health, Stats } from '../shared/http-api';
import { Protocol } from '../shared/protocol-events';
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
import { BackPressure } from './limits/back-pressure';
import { LimitMetrics } from './limits/limit-metrics';
import { LimitsService } from './limits/limits-service';
import { createLogger, type Logger } from './logging/logger';
import { NamespaceLoader } from './namespaces/namespace-loader';
import { attachRemote } from './namespaces/remote/remote-namespace';
import { TicketStore } from './namespaces/remote/ticket-store';
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

export interface BrokerOptions {
  logger?: Logger;
  /** Environment read for `TYO_MQ_MAX_HTTP_BUFFER_SIZE`; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Extra silence (ms) past the ping interval before a socket counts as half-open; 2,000. */
  halfOpenMarginMs?: number;
  /** Directory that relative storage file names resolve against; default the working dir. */
  dataDir?: string;
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
  const settings = parseSettings(input, options.env ?? process.env);
  const logger = options.logger ?? createLogger();
  for (const key of unsupportedKeys(settings)) {
    logger.warn({ key }, 'settings key accepted but not implemented in this build');
  }
  const startedAt = Date.now();
  // The store opens first: a corrupt file must stop the broker before it serves anyone.
  const store = createStore(settings, options.dataDir ?? process.cwd());
  const io: BrokerServer = new Server(socketIoOptions(settings.max_http_buffer_size));
  const connectionsCurrent = (): number => io.engine?.clientsCount ?? 0;
  const metrics = new BrokerMetrics(
    settings.input_limits.max_event_labels_per_realm,
    connectionsCurrent,
  );
  const realms = new RealmDirectory();
  // Read through ctx so hot-reloaded settings apply (re-read at most once a second, §11.1).
  const limitMetrics = new LimitMetrics(metrics.registry);
  const rateLimits = new LimitsService(
    () => ctx.settings.limits,
    realms,
    limitMetrics,
    logger,
    Date.now,
    settings.max_http_buffer_size,
  );
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
  const cap = new QueueCap(store, (realm) =>
    rateLimits.config.value('max_queued_per_realm', realm),
  );
  // `local`: socket ids are this node's; a cluster adapter must not relay these packets.
  const remoteTickets = new TicketStore();
  const backPressure = new BackPressure(() => ctx.settings.back_pressure, limitMetrics, logger);
  const delivery = new Delivery(
    metrics,
    acks,
    store,
    cap,
    logger,
    (ids, event, envelope) => io.local.to(ids).emit(event, envelope),
    backPressure,
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
  const ctx: HandlerContext = {
    settings,
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
    limits: rateLimits,
    remoteTickets,
    pingIntervalMs: PING_INTERVAL_MS,
    halfOpenMarginMs: options.halfOpenMarginMs ?? 2_000,
    dispatch: (socket, event, raw, ack) => dispatch(ctx, socket, event, raw, ack),
  };
  // §16: the bundled `/remote`, then the custom namespaces of the settings.
  attachRemote(io, remoteTickets, () => ctx.settings.remote, logger);
  const namespaceLoader = new NamespaceLoader(io, () => ctx.settings, logger);
  const namespacesReady = namespaceLoader.sync();
  io.on('connection', (socket) => {
    if (rateLimits.admitConnection(socket)) onConnection(ctx, socket);
  });

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
  const httpApi = createHttpApi({
    settings: () => settings,
    health,
    stats: getStats,
    metrics: () => metrics.render(),
    listDlq: (realm) => store.listDlq(realm),
    onError: (err) => logger.error({ err }, 'metrics rendering failed'),
  });

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
    async listen(port = Protocol.DEFAULT_PORT, host = '0.0.0.0') {
      if (ownServer) throw new SwitchboardError('SWB_ERR_INTERNAL', 'Broker is already listening');
      await restored;
      await namespacesReady;
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
      acks.close();
      chunks.close();
      remoteTickets.close();
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
    namespaces: namespaceLoader.apis,
    syncNamespaces: () => namespaceLoader.sync(),
    namespaceModules: () => namespaceLoader.describe(),
    bufferedBytes(socketId) {
      const socket = io.of('/').sockets.get(socketId);
      return socket ? backPressure.bufferedBytes(socket) : null;
    },
    async replayDlq(msgId, realm) {
      const entry = await store.replayDlq(msgId, realm);
      if (!entry) return null;
      const registry = realms.get(entry.realm);
      for (const record of registry?.subscriptions.get(entry.event)?.values() ?? []) {
        if (
          record.consumerId === entry.consumer &&
          registry!.consumers.get(record.consumer)?.online
        ) {
          void replayer.replay(registry!, record);
        }
      }
      return entry;
    },
  };
}
