/**
 * The broker's public handle (`Broker` in broker-types.ts, docs/embedding.md), minus the
 * embedding API that `withEmbedding` adds: listening, stopping and draining, status and stats,
 * the store and its DLQ replay, backups, namespaces and test hooks. Built once by `createBroker`
 * from the parts it assembled; it holds no state of its own.
 */
import { Protocol } from '../shared/protocol-events';
import type { Stats } from '../shared/http-api';
import type { AuthState } from './auth/auth-state';
import type { BrokerListeners } from './broker-listeners';
import type { Broker } from './broker-types';
import type { LiveSettings } from './config/live-settings';
import type { SettingsRuntime } from './config/settings-runtime';
import type { DurableExpiry } from './delivery/durable-expiry';
import type { QueueLedger } from './delivery/queue-ledger';
import type { PendingWork } from './handlers/pending-work';
import type { HttpPublish } from './http-publish/http-publish';
import type { BackPressure } from './limits/back-pressure';
import type { Logger } from './logging/logger';
import type { BrokerMetrics } from './metrics/broker-metrics';
import type { MqttListener } from './mqtt/mqtt-listener';
import type { NamespaceLoader } from './namespaces/namespace-loader';
import type { EmbeddingApi } from './policy/embedding-types';
import type { IdleSweeper } from './routing/idle-eviction';
import type { MessageStore } from './storage/message-store';
import type { GracefulDrain } from './transport/graceful-drain';
import type { BrokerServer } from './transport/socket-types';
import { BROKER_VERSION } from './version';

/** What the handle reads and calls. */
export interface BrokerHandleParts {
  live: LiveSettings;
  auth: AuthState;
  logger: Logger;
  listeners: BrokerListeners;
  pending: PendingWork;
  drain: GracefulDrain;
  readiness: Broker['readiness'];
  getStats: () => Stats;
  httpPublish: HttpPublish;
  expiry: DurableExpiry;
  sweeper: IdleSweeper;
  ledger: QueueLedger;
  /** Epoch ms. */
  startedAt: number;
  metrics: BrokerMetrics;
  connectionsCurrent: () => number;
  mqtt: MqttListener;
  store: MessageStore;
  replayDlq: Broker['replayDlq'];
  runtime: SettingsRuntime;
  backup: Broker['backup'];
  namespaceLoader: NamespaceLoader;
  io: BrokerServer;
  backPressure: BackPressure;
}

export function brokerHandle(parts: BrokerHandleParts): Omit<Broker, keyof EmbeddingApi> {
  const { live, listeners, drain, ledger, sweeper, metrics, mqtt, runtime, io } = parts;
  const { startedAt, connectionsCurrent, httpPublish, namespaceLoader, backPressure } = parts;
  return {
    get settings() {
      return live.current;
    },
    auth: parts.auth,
    logger: parts.logger,
    listen: (port = Protocol.DEFAULT_PORT, bindHost = '0.0.0.0') =>
      listeners.listen(port, bindHost),
    attach: (server) => listeners.attach(server),
    settled(timeoutMs = 5_000) {
      return parts.pending.settled(timeoutMs);
    },
    // A shutdown clients survive (issue 19): transports closed without DISCONNECT.
    async close(options = {}) {
      const timeoutMs = options.timeoutMs ?? live.current.shutdown.timeout_ms;
      await drain.stop({ ...options, graceMs: 0, timeoutMs });
    },
    drain: (options = {}) =>
      drain.stop({
        ...options,
        graceMs: options.graceMs ?? live.current.shutdown.grace_ms,
        timeoutMs: options.timeoutMs ?? live.current.shutdown.timeout_ms,
      }),
    readiness: parts.readiness,
    getStats: parts.getStats,
    httpPublish: { streams: () => httpPublish.hub.size, history: httpPublish.hub.history },
    expireDurableSubscriptions: (now) => parts.expiry.sweep(now),
    sweepIdleRegistrations: () => {
      const evicted = sweeper.sweepAll();
      ledger.sweepOrphans();
      return evicted;
    },
    status: () => ({
      listening: listeners.bound !== null,
      port: listeners.bound?.port ?? null,
      host: listeners.bound?.host ?? null,
      uptimeMs: Date.now() - startedAt,
      version: BROKER_VERSION,
      produced: metrics.totals.produced,
      delivered: metrics.totals.delivered,
      connectionsTotal: metrics.totals.connections,
      connectionsCurrent: connectionsCurrent(),
      mqttPort: mqtt.bound?.port ?? null,
      mqttWsPort: mqtt.bound?.wsPort ?? null,
    }),
    store: parts.store,
    replayDlq: parts.replayDlq,
    reloadSettings: () => runtime.reload(),
    backupAuthStore: async (dest) => (await runtime.backupAuthStore(dest)) !== null,
    backup: parts.backup,
    namespaces: namespaceLoader.apis,
    syncNamespaces: () => namespaceLoader.sync(),
    namespaceModules: () => namespaceLoader.describe(),
    bufferedBytes(socketId) {
      const socket = io.of('/').sockets.get(socketId);
      return socket ? backPressure.bufferedBytes(socket) : null;
    },
  };
}
