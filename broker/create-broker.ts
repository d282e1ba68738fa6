/**
 * `createBroker(settings)`: the broker's composition root — wiring only (re-exported by
 * `broker/index.ts`, the broker's public API).
 *
 * Takes the same object as the settings file (`spec/protocol-admin.md` §12.1), validates it
 * (strict, aliases folded; throws `SwitchboardError` `SWB_ERR_VALIDATION`), and returns a
 * handle that can `listen(port, host)` on its own HTTP server or `attach(httpServer)` to an
 * existing one, plus read-only status. socket.io options follow `spec/protocol-core.md` §1.1.
 */
import { Server } from 'socket.io';
import type { Health, Stats } from '../shared/http-api';
import { authorizationRequests, keepAdminToken } from './auth/auth-wiring';
import { watchRevocations } from './auth/session-revocation';
import { TokenValidator } from './auth/token-validator';
import { brokerManagement } from './broker-management';
import { brokerDrain } from './broker-drain';
import { clusterAdmin } from './cluster/cluster-admin-wiring';
import { createCluster } from './cluster/create-cluster';
import { sharedStoreName } from './cluster/realm-renames';
import { createSettingsRuntime } from './config/settings-runtime';
import {
  UNSUPPORTED_KEY_MESSAGE,
  unsupportedKeys,
  type SettingsInput,
} from './config/settings-schema';
import { brokerHandle } from './broker-handle';
import { brokerHttpSurface } from './broker-http-surface';
import { BrokerListeners } from './broker-listeners';
import { createDeliveryCore } from './delivery-core';
import { DurableExpiry } from './delivery/durable-expiry';
import { dlqReplay } from './delivery/dlq-replay';
import { notifyRequester } from './handlers/authorization-handlers';
import { dispatch } from './handlers/dispatcher';
import { PendingWork } from './handlers/pending-work';
import type { HandlerContext } from './handlers/handler-context';
import { clientTracking } from './clients/client-tracking';
import { forbidden } from './http/http-api';
import { brokerHealth, brokerStats } from './http/broker-stats';
import { LimitMetrics } from './limits/limit-metrics';
import { LimitsService } from './limits/limits-service';
import { createLogger } from './logging/logger';
import { NamespaceLoader } from './namespaces/namespace-loader';
import { attachRemote } from './namespaces/remote/remote-namespace';
import { TicketStore } from './namespaces/remote/ticket-store';
import { BrokerMetrics } from './metrics/broker-metrics';
import { observeStore } from './metrics/store-observers';
import { transportCounts } from './metrics/transport-counts';
import { createEmbedding, withEmbedding } from './embedding/embedding-api';
import { createMqttListener } from './mqtt/create-mqtt-listener';
import { purgeStoredRealm } from './mqtt/mqtt-realm-purge';
import { IdleSweeper, startIdleSweep } from './routing/idle-eviction';
import { RealmDirectory } from './routing/realm-directory';
import { Router } from './routing/router';
import { SubscriptionPersistence } from './routing/subscription-persistence';
import { createStore } from './storage/create-store';
import type { MessageStore } from './storage/message-store';
import { backupStores } from './storage/store-backup';
import { onConnection } from './handlers/connection-lifecycle';
import { extensionRuntime } from './extensions/extension-runtime';
import { loadSealedConfig } from './extensions/sealed/sealed-config';
import { RealmDataMover, type RealmDataDeps } from './admin/realm-data-move';
import { HttpHost } from './transport/http-host';
import { storeFiles } from './metrics/resource-monitor';
import { queueStaleness } from './admin/resource-commands';
import { closeForReconnect } from './transport/reconnect-close';
import { RequestPolicy } from './http/request-policy';
import { socketIoOptions } from './transport/socket-options';
import type { BrokerServer } from './transport/socket-types';
import type { Broker, BrokerOptions } from './broker-types';
import { BROKER_VERSION } from './version';

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
    logger.warn({ key }, UNSUPPORTED_KEY_MESSAGE);
  }
  const startedAt = Date.now();
  const env = options.env ?? process.env;
  // §4.1: read once; malformed sealed material stops the broker before anything is opened.
  const sealed = loadSealedConfig(env);
  // One live auth config, persisted by the settings runtime (file / auth store).
  const auth = runtime.auth;
  keepAdminToken(auth, logger, env);
  // The store opens first: a corrupt file must stop the broker before it serves anyone.
  let store: MessageStore;
  try {
    store = createStore(settings, options.dataDir ?? process.cwd(), logger);
  } catch (err) {
    void runtime.close();
    throw err;
  }
  // Every HTTP request and upgrade of both listeners passes it (issue 19); refusals counted.
  const policy = new RequestPolicy(
    () => live.current,
    () => auth.enabled,
    { rejectedInput: (reason) => limitMetrics.rejectedInput(reason) },
    logger,
  );
  const ioOptions = socketIoOptions(settings.max_http_buffer_size, settings);
  const io: BrokerServer = new Server({
    ...ioOptions,
    // CORS headers for the cross-origin pages the policy admits (loopback, `cors.origin`).
    cors: { ...ioOptions.cors, origin: policy.corsOrigin },
  });
  // socket.io plus MQTT clients (the MQTT listener is built below, once routing exists).
  let mqttConnected = (): number => 0;
  // Realm disposal on the MQTT side; the start-up sweep runs before the listener exists.
  let purgeMqtt = (realm: string): Promise<void> => purgeStoredRealm(store.mqttState, realm);
  // The MQTT side of `rename_realm` once the listener exists (before: the store alone).
  let mqttForRename: ReturnType<NonNullable<RealmDataDeps['mqtt']>> = null;
  const connectionsCurrent = (): number => (io.engine?.clientsCount ?? 0) + mqttConnected();
  const metrics = new BrokerMetrics(
    settings.input_limits.max_event_labels_per_realm,
    connectionsCurrent,
    settings.input_limits.max_queue_depth_series,
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
  const { ledger, repeated, acks, chunks, backPressure, delivery, replayer } = createDeliveryCore({
    settings,
    backPressure: () => live.current.back_pressure,
    store,
    realms,
    rateLimits,
    limitMetrics,
    metrics,
    logger,
    io,
  });
  metrics.watchQueues(ledger);
  const clientRecords = clientTracking(rateLimits, backPressure);
  // Online backup of the SQLite files (docs/backup.md): `broker.backup`, `backup_store`.
  const backup = (destDir: string) => backupStores(store, runtime, destDir);
  metrics.watchTransports(() => transportCounts(io, mqttConnected()));
  // Resources and alarms (issue 27): the `resources` command and /api/metrics.
  const { resources, fellBack } = observeStore(metrics, store, {
    storeFiles: () => storeFiles(store.filename, runtime.authStoreFile()),
    queues: () => queueStaleness({ realms, store, ledger, acks }),
    thresholds: () => live.current.alarms,
    logger,
  });
  const remoteTickets = new TicketStore();
  const router = new Router(realms, delivery);
  // Clustering over Redis (docs/cluster.md): relay, heartbeat; a no-op when not enabled.
  const persistence = new SubscriptionPersistence(store, logger);
  const cluster = createCluster(settings, {
    router,
    realms,
    registry: metrics.registry,
    logger,
    version: BROKER_VERSION,
    dataDir: options.dataDir,
    persistence,
    sharedStore: () => sharedStoreName(settings, store.backend) !== '',
    store,
    replay: (realmName, key, consumer) => {
      const realm = realms.get(realmName);
      const record = realm?.subscriptions.get(key)?.get(consumer);
      if (realm && record) void replayer.replay(realm, record);
    },
  });
  // The embedding API (docs/embedding.md): hooks, events, in-process publish/subscribe.
  const embedding = createEmbedding({
    logger,
    hooks: options.hooks,
    auth,
    router,
    delivery,
    acks,
    metrics,
  });
  const embed = embedding.embed;
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
  const authRequests = authorizationRequests(
    auth,
    (realm) => rateLimits.pendingRequestCaps(realm),
    cluster.nodeId,
    options.requests ?? runtime.requestStore(),
    logger,
  );
  // Shared admin state of a cluster (docs/cluster.md): nonces, settings, authorization requests.
  const nonces = options.nonces ?? runtime.nonces;
  const admin = clusterAdmin(cluster, {
    shared: runtime.shared,
    auth,
    authRequests,
    localNonces: nonces,
    io,
    notifyRequester,
    // A rename made on another node (docs/cluster.md): this node's sessions and data follow.
    localRename: {
      closeSessions(realm) {
        const sockets = ctx.management.lifecycle.socketsOf(realm);
        for (const socket of sockets) closeForReconnect(socket);
        return sockets.length;
      },
      move: (from, to, storeMoved) => realmData.move(from, to, { storeMoved }),
    },
    storeName: () => sharedStoreName(settings, store.backend),
    logger,
  });
  // The extensions' per-identity state (E2EE keys, pins) and push (§2.4, §6).
  const { extensions, push, offlineStored } = extensionRuntime({
    ...{ store, cluster, sealed, env, push: options.push, metrics: metrics.registry, logger },
  });
  delivery.offlineStored = offlineStored;
  // `rename_realm`'s data move, on the node that runs it and on its cluster peers.
  const realmData = new RealmDataMover({
    ...{ extensions, store, realms, ledger, acks, persistence },
    mqtt: () => mqttForRename,
    dropRequests: (realm) => admin.dropRealm(realm),
    logger,
  });
  const replayDlq = dlqReplay({ store, ledger, metrics, realms, replayer, logger });
  const pending = new PendingWork();
  const ctx: HandlerContext = {
    get settings() {
      return live.current;
    },
    auth,
    tokens: new TokenValidator(auth, logger, options.validatorTimeoutMs),
    nonces,
    // In-memory nonces die with the process: proofs older than its start are refused then.
    get proofsNotBefore() {
      return options.nonces || runtime.authStoreFile() ? 0 : startedAt;
    },
    authRequests,
    ...admin.context,
    realms,
    pending,
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
    repeated,
    management: brokerManagement({
      ...{ live, auth, realms, store, replayer, logger, metrics, io, admin, ledger, runtime },
      ...{ extensions, authRequests, realmData, replayDlq, backup, acks, resources, persistence },
      clientRecords,
      settingsFile: options.settingsFile,
      getStats: () => getStats(),
      purgeMqtt: (realm) => purgeMqtt(realm),
      // The listener is built below; commands only run once clients are served.
      mqtt: () => mqtt,
    }),
    limits: rateLimits,
    remoteTickets,
    pingIntervalMs: settings.ping_interval,
    halfOpenMarginMs: options.halfOpenMarginMs ?? 2_000,
    embed,
    clients: clientRecords.sockets,
    extensions,
    dispatch: (socket, event, raw, ack) => dispatch(ctx, socket, event, raw, ack),
  };
  const mqtt = createMqttListener(
    auth,
    ctx.tokens,
    router,
    metrics,
    logger,
    store,
    rateLimits,
    embed,
    options.mqttHeartbeatMs,
    policy.verifyWebSocket,
  );
  clientRecords.mqtt(mqtt);
  mqttConnected = () => mqtt.connectedCount;
  purgeMqtt = (realm) => mqtt.purgeRealm(realm);
  mqttForRename = mqtt;
  // `$SYS/<realm>/…/clients` presence of tyo-mq producers and consumers too (docs/mqtt.md).
  realms.presence = (realm, name, kind) => mqtt.socketPresence(realm, name, kind);
  // §16: the bundled `/remote`, then the custom namespaces of the settings.
  attachRemote(io, remoteTickets, () => live.current.remote, logger);
  const namespaceLoader = new NamespaceLoader(io, () => live.current, logger);
  const namespacesReady = namespaceLoader.sync();
  live.onChange(() => void namespaceLoader.sync());
  io.on('connection', (socket) => {
    if (rateLimits.admitConnection(socket)) onConnection(ctx, socket);
  });
  const stopRevocations = watchRevocations(auth, () => io.of('/').sockets.values(), logger);
  const getStats = (): Stats =>
    brokerStats(
      realms,
      ledger,
      connectionsCurrent(),
      cluster.nodeId ?? undefined,
      mqtt.realmCounts(),
      cluster.status(),
      store.storageStatus?.(),
      fellBack(),
    );
  const health = (): Health => brokerHealth(startedAt, cluster.nodeId ?? undefined, fellBack());
  const drain = brokerDrain({
    ...{ logger, pending, io, connections: connectionsCurrent },
    stopAccepting() {
      policy.shutdown();
      listeners.stopAccepting();
      mqtt.stopAccepting();
      stopSweep();
      stopRevocations();
      ctx.management.lifecycle.stop();
    },
    release: () => ({
      closeFirst: [
        acks,
        repeated,
        backPressure,
        ledger,
        chunks,
        remoteTickets,
        resources,
        httpPublish,
      ],
      ...{ expiry, mqtt, admin, push, cluster, listeners, runtime, store, embedding },
    }),
  });
  const { readiness, httpPublish, httpApi } = brokerHttpSurface({
    ...{ live, auth, tokens: ctx.tokens, router, embed, metrics, logger, limitMetrics, env },
    ...{ rateLimits, policy, health, getStats, realms, ledger, mqtt, store, cluster, drain },
    clientHistory: clientRecords.history,
    listeners: () => listeners,
  });
  const sweeper = new IdleSweeper(realms, settings.idle_eviction.ttl_ms);
  const stopSweep = settings.idle_eviction.enabled
    ? startIdleSweep(sweeper, settings.idle_eviction.interval_ms, (evicted) => {
        if (evicted > 0) logger.info({ evicted }, 'idle registrations evicted');
        if (evicted > 0) ledger.sweepOrphans();
      })
    : () => {};
  const host = new HttpHost(io, httpApi, forbidden, policy.engineMiddleware);
  const listeners = new BrokerListeners({
    live,
    logger,
    auth,
    store,
    // Start-up writes of the settings file (an auth change made while assembling) are on disk
    // before anyone is served, so an operator's first edit cannot be overwritten by one.
    ready: () => Promise.all([restored, namespacesReady, extensions.ready, runtime.flush()]),
    start: () => cluster.start().then(() => admin.start()),
    host,
    io,
    bound: (bindHost) => policy.bound(bindHost),
    mqtt,
    embedding,
  });

  const handle = brokerHandle({
    ...{ live, auth, logger, listeners, pending, drain, readiness, getStats, httpPublish },
    ...{ expiry, sweeper, ledger, startedAt, metrics, connectionsCurrent, mqtt, store },
    ...{ replayDlq, runtime, backup, namespaceLoader, io, backPressure },
  });
  return withEmbedding(handle, embedding);
}
