/**
 * `brokerManagement(parts)`: the management services (`spec/protocol-admin.md` §8, §9) wired
 * from the broker's assembled parts. Part of the composition root: `createBroker` calls it once
 * while building the handler context.
 *
 * Some parts exist only later in the assembly (the MQTT listener, `stats`); they are passed as
 * functions and read when a command runs, which is always after the broker is listening.
 */
import type { Stats } from '../shared/http-api';
import { createManagement, type ManagementDeps } from './admin/create-management';
import type { ManagementServices } from './admin/management-commands';
import { realmSessions } from './admin/realm-sessions';
import type { ClientTracking } from './clients/client-tracking';
import type { ClusterAdmin } from './cluster/cluster-admin-wiring';
import type { LiveSettings } from './config/live-settings';
import type { SettingsRuntime } from './config/settings-runtime';
import type { QueueLedger } from './delivery/queue-ledger';
import type { SubscriptionPersistence } from './routing/subscription-persistence';
import type { AuthorizationRequests } from './auth/authorization-requests';
import type { MqttListener } from './mqtt/mqtt-listener';
import type { BrokerServer } from './transport/socket-types';

export interface BrokerManagementParts extends Pick<
  ManagementDeps,
  | 'auth'
  | 'realms'
  | 'store'
  | 'replayer'
  | 'logger'
  | 'metrics'
  | 'realmData'
  | 'replayDlq'
  | 'backup'
  | 'acks'
  | 'resources'
  | 'purgeMqtt'
> {
  live: LiveSettings;
  runtime: SettingsRuntime;
  io: BrokerServer;
  ledger: QueueLedger;
  persistence: SubscriptionPersistence;
  admin: ClusterAdmin;
  authRequests: AuthorizationRequests;
  clientRecords: ClientTracking;
  /** Drops a disposed realm's extension state (E2EE keys and pins). */
  extensions: { purgeRealm(realm: string): void } & NonNullable<ManagementDeps['identities']>;
  /** The watched settings file, if any: without one `reload_settings` answers 400 (§8.2). */
  settingsFile?: string;
  getStats(): Stats;
  /** The MQTT listener, built after the management services. */
  mqtt(): MqttListener;
}

/** Builds the broker's management services from its parts (see the module comment). */
export function brokerManagement(parts: BrokerManagementParts): ManagementServices {
  const { live, auth, realms, store, replayer, logger, metrics, io, admin, ledger } = parts;
  const { runtime, extensions, authRequests } = parts;
  return createManagement({
    settings: () => live.current,
    auth,
    realms,
    store,
    replayer,
    logger,
    metrics,
    sockets: () => io.of('/').sockets.values(),
    getStats: () => parts.getStats(),
    purgeRequests: (realm) => admin.dropRealm(realm),
    realmPurged: (realm) => ledger.clearRealm(realm),
    purgeMqtt: parts.purgeMqtt,
    purgeExtensions: (realm) => extensions.purgeRealm(realm),
    realmData: parts.realmData,
    renames: admin.renames,
    reloadSettings: parts.settingsFile ? () => runtime.reload() : undefined,
    replayDlq: parts.replayDlq,
    backup: parts.backup,
    consumers: { ledger, persistence: parts.persistence },
    clients: parts.clientRecords,
    acks: parts.acks,
    sessions: realmSessions({
      auth,
      sockets: () => io.of('/').sockets.values(),
      mqttClients: (realm) => parts.mqtt().realmClients(realm),
      logger,
    }),
    // `retained` is null while the listener is not listening (MQTT off).
    retained: { store: () => parts.mqtt().retained },
    resources: parts.resources,
    identities: extensions,
    pendingRequests: async (realm) =>
      admin.context.clusterRequests
        ? admin.context.clusterRequests.pendingList(realm)
        : authRequests.pendingList(realm),
  });
}
