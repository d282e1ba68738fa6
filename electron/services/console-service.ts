/**
 * The ConsoleService implementation (`shared/console-api.ts`) on top of the ConnectionManager,
 * the local BrokerSupervisor and one ManagerClient per connection. Transports (Electron IPC, web
 * host) validate input and call it.
 */
import { LOCAL_CONNECTION_ID, type ConsoleService, type Overview } from '../../shared/console-api';
import type { ConsoleFootprint } from '../../shared/console-api-operations';
import type { BrokerSupervisor } from './broker-supervisor';
import { ConsoleEventHub } from './console-event-hub';
import type { ConnectionManager } from './connection-manager';
import type { ConnectionProfileStore } from './connection-profiles';
import { createConnectionsService } from './connections-console-service';
import { createOperationsService } from './operations-console-service';
import { createQueuesService } from './queues-console-service';
import { createResourcesService } from './resources-console-service';
import { createRetainedService } from './retained-console-service';
import { createIdentitiesService } from './identities-console-service';
import { createCommandsService } from './commands-console-service';
import { createDefinitionsService } from './definitions-console-service';
import { RequestWatcher } from './request-watcher';
import type { SecretStore } from './secret-store';
import { realmsInUse, toAuthorizationRequest, toRealmList } from './manager-pool';
import { oldestPending } from './pending-requests';
import {
  ActivityLog,
  AuditedManagerPool,
  CONSOLE_MQTT_PUBLISH_ACTION,
  CONSOLE_PUBLISH_ACTION,
} from './activity-log';
import { createRealmsConsoleService } from './realms-console-service';
import { createLocalBrokerConsoleService } from './local-broker-console-service';
import { createTapConsoleService } from './tap-console-service';
import { removeTapConsumer } from './tap-leftovers';
import { createTopicTreeService } from './topic-tree-console-service';

/** A ConsoleService plus `shutdown()`, which finishes the console's own work on the local
 * broker (running taps leave their brokers, a running demo stops and removes its realm; never
 * rejects, bounded in time) and must run before that broker stops, and `close()`, which
 * detaches it from its sources. */
export type ClosableConsoleService = ConsoleService & {
  shutdown(): Promise<void>;
  close(): void;
};

export interface ConsoleServiceDeps {
  connections: ConnectionManager;
  supervisor: BrokerSupervisor;
  /** Period of the pending-request check in ms. Default 1000. */
  requestPollMs?: number;
  /** Remote connection profiles (absent: the local broker only). */
  profiles?: ConnectionProfileStore;
  /** Where secrets live (for `getSecretStoreInfo`; values never leave it). */
  secrets?: SecretStore;
  /** The console's data directory, where the audit log lives; absent = in memory only. */
  dataDir?: string;
  /** Stop live taps and topic trees no page listens to after this long, ms. Default 10,000. */
  tapOrphanMs?: number;
  /** Update period of every topic tree, ms. Default `TOPIC_TREE_UPDATE_MS` (1,000; tests). */
  topicTreePeriodMs?: number;
}

/**
 * Builds the service. Events: `overview` for every sample of every connection (≥ 1/s each; the
 * transports deliver a connection's events only to clients watching it), `connections` when the
 * list or a connection's reachability changes,
 * `localBroker` on every supervisor status change, `pendingRequest` when a connection's oldest
 * pending authorization request changes.
 * Errors: `getOverview` → `SWB_ERR_NOT_FOUND`; `restartLocalBroker` → `SWB_ERR_PORT_IN_USE`,
 * `SWB_ERR_VALIDATION` or `SWB_ERR_BROKER_NOT_RUNNING` when the broker cannot come back; the
 * manager methods → see `ManagerPool.get` and `ManagerClient`.
 */
export function createConsoleService({
  connections,
  supervisor,
  requestPollMs,
  profiles,
  secrets,
  dataDir,
  tapOrphanMs,
  topicTreePeriodMs,
}: ConsoleServiceDeps): ClosableConsoleService {
  const hub = new ConsoleEventHub();
  // Every signed command goes through the audit log (activity-log.ts).
  const activity = new ActivityLog({
    dataDir: dataDir ?? null,
    onEntry: (e) => hub.emit('activity', e),
  });
  const pool = new AuditedManagerPool(connections, activity);
  const watcher = new RequestWatcher({
    pool,
    connectionIds: () => connections.ids(),
    realmOf: (connectionId) => {
      const credential = connections.profile(connectionId).stored?.credential;
      return credential?.kind === 'realm-manager' ? credential.realm : undefined;
    },
    onChange: (pending) => hub.emit('pendingRequest', pending),
    intervalMs: requestPollMs,
    onRefusal: (connectionId, refusal) => connections.reportCommandRefusal(connectionId, refusal),
  });
  watcher.start();
  const tap = createTapConsoleService({
    connections,
    pool,
    hub,
    orphanMs: tapOrphanMs,
    listClients: (connectionId) => operations.listClients({ connectionId }),
  });
  const retained = createRetainedService({ pool });
  const topics = createTopicTreeService({
    hub,
    openRealm: tap.openRealm,
    holdConsumer: tap.holdConsumer,
    forget: (connectionId, realm, consumer) =>
      removeTapConsumer(pool.get(connectionId, 'console'), realm, consumer).catch(() => false),
    retained,
    listClients: (connectionId) => operations.listClients({ connectionId }),
    orphanMs: tapOrphanMs,
    periodMs: topicTreePeriodMs,
  });
  const local = createLocalBrokerConsoleService({ supervisor, connections, pool, hub });
  const footprint = (connectionId: string): ConsoleFootprint => ({
    management: pool.isConnected(connectionId),
    ...tap.footprint(connectionId),
  });
  // The broker counts the console's own sockets among its connections: say how many are ours.
  const withOwn = (overview: Overview): Overview => {
    const own = footprint(overview.connectionId);
    return { ...overview, consoleConnections: (own.management ? 1 : 0) + own.taps.length };
  };
  const detach = [
    connections.onOverview((overview) => hub.emit('overview', withOwn(overview))),
    supervisor.onStatus((status) => hub.emit('localBroker', status)),
    connections.onChange(() => hub.emit('connections', connections.summaries())),
    // An edited or removed profile starts without the old one's backoff.
    connections.onChange((changedId) => {
      if (changedId !== null) watcher.forget(changedId);
    }),
    // Taps a killed console left (queued copies survive the broker's restart): remove them.
    supervisor.onStatus((status) => {
      if (status.state === 'running') void tap.removeLeftovers(LOCAL_CONNECTION_ID);
    }),
  ];
  const operations = createOperationsService({
    connections,
    pool,
    hub,
    disposers: detach,
    consoleFootprint: footprint,
  });
  return {
    getOverview: async ({ connectionId }) => withOwn(await connections.overview(connectionId)),
    getLocalBroker: async () => supervisor.status(),
    restartLocalBroker: () => supervisor.restart(),
    nextRequest: async ({ connectionId, realm }) => {
      const { request, total } = await oldestPending(pool.get(connectionId), realm);
      return { connectionId, request: request ? toAuthorizationRequest(request) : null, total };
    },
    decideRequest: async ({ connectionId, requestId, approved, role, reason }) => {
      const raw = await pool.get(connectionId).decide(requestId, approved, role, reason);
      // Show the next one at once rather than after the next poll.
      void watcher.round();
      return toAuthorizationRequest(raw);
    },
    listRealms: async ({ connectionId }) => {
      const manager = pool.get(connectionId);
      // `stats` adds the realms clients use without a settings entry; a credential that may
      // not read it (a realm manager key) or a broker without it still gets the configured ones.
      const [reply, stats] = await Promise.all([
        manager.command({ command: 'get' }),
        manager.command({ command: 'stats' }).catch(() => null),
      ]);
      const list = toRealmList(connectionId, reply.settings);
      const configured = new Set(list.realms.map((r) => r.name));
      return { ...list, inUse: realmsInUse(stats?.stats, configured) };
    },
    ...createConnectionsService({ connections, profiles, secrets }),
    ...createRealmsConsoleService({ pool, activity }),
    ...operations,
    ...createQueuesService({ pool }),
    ...retained,
    ...createIdentitiesService({ pool }),
    ...createResourcesService({ pool }),
    ...createCommandsService({
      pool,
      signerOf: (connectionId) => {
        const credential = connections.profile(connectionId).stored?.credential;
        return credential?.kind === 'realm-manager'
          ? { kind: 'realm-manager', realm: credential.realm }
          : { kind: 'admin', realm: null };
      },
    }),
    ...createDefinitionsService({ pool, connections }),
    ...tap.methods,
    ...topics.methods,
    // Test publishes are operator actions too: recorded in Activity (without the message).
    publishMessage: (input) =>
      pool.recorded(
        input.connectionId,
        'operator',
        CONSOLE_PUBLISH_ACTION,
        {
          realm: input.realm,
          event: input.event,
          from: input.from ?? 'switchboard-console',
          guaranteed: input.guaranteed ?? false,
          ttl: input.ttlSeconds,
        },
        () => tap.methods.publishMessage(input),
      ),
    publishMqtt: (input) =>
      pool.recorded(
        input.connectionId,
        'operator',
        CONSOLE_MQTT_PUBLISH_ACTION,
        {
          realm: input.realm,
          topic: input.topic,
          qos: input.qos ?? 0,
          retain: input.retain ?? false,
        },
        () => tap.methods.publishMqtt(input),
      ),
    ...local.methods,
    on: (event, listener) => hub.on(event, listener),
    // Taps first: they leave their brokers while the local one still runs.
    shutdown: () => Promise.all([tap.shutdown(), topics.shutdown()]).then(() => local.shutdown()),
    close: () => {
      tap.close();
      topics.close();
      local.close();
      watcher.stop();
      pool.close();
      detach.forEach((dispose) => dispose());
      hub.clear();
    },
  };
}
