/**
 * Builds the management services (`spec/protocol-admin.md` §8, §9) from the broker's parts:
 * the realm lifecycle (started here), the DLQ replay with its consumer nudge, the persistence
 * view and `stats`. Called once by `createBroker`.
 */
import type { Stats } from '../../shared/http-api';
import type { AuthState } from '../auth/auth-state';
import type { Settings } from '../config/settings-schema';
import type { Replayer } from '../delivery/replay';
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { MessageStore, StoredEntry } from '../storage/message-store';
import type { BrokerSocket } from '../transport/socket-types';
import type { ClientServices } from './client-commands';
import type { ConsumerServices } from './consumer-commands';
import type { IdentityServices } from './identity-commands';
import type { ManagementServices, RealmRenameNotices } from './management-commands';
import type { PersistenceView } from './public-settings';
import type { QueueServices } from './queue-commands';
import type { RealmDataMover } from './realm-data-move';
import type { ResourceServices } from './resource-commands';
import type { RetainedServices } from './retained-commands';
import { RealmLifecycle } from './realm-lifecycle';
import { collectStats } from './stats-command';

export interface ManagementDeps {
  /** The settings in force (read at each use: they can be reloaded). */
  settings: () => Settings;
  auth: AuthState;
  realms: RealmDirectory;
  store: MessageStore;
  replayer: Replayer;
  logger: Logger;
  /** `tyo_mq_messages_queued_total` counts DLQ replays too (§10.4). */
  metrics?: { messageQueued(realm: string): void };
  sockets(): Iterable<BrokerSocket>;
  getStats(): Stats;
  /** Drops a disposed realm's authorization requests. */
  purgeRequests?(realm: string): number;
  /** Called once a disposed realm's stored copies are deleted (queue accounting). */
  realmPurged?(realm: string): void;
  /** Closes a disposed realm's MQTT clients and deletes its MQTT state. */
  purgeMqtt?(realm: string): Promise<void>;
  /** Drops a disposed realm's extension state: E2EE keys and pins (extensions/, §10). */
  purgeExtensions?(realm: string): void;
  /** Moves a renamed realm's data (`rename_realm`). */
  realmData?: RealmDataMover;
  /** Tells a cluster's other nodes about a rename, so each moves its own data. */
  renames?: RealmRenameNotices;
  /** Re-read of the watched settings file, when there is one (may be asynchronous). */
  reloadSettings?: () => unknown;
  /** Registry, queue ledger and subscription persistence for `remove_consumer`. */
  consumers?: Omit<ConsumerServices, 'realms'>;
  /** Per-connection records (`client_detail`, `close_client`). */
  clients?: ClientServices;
  /** The ACK tracker the queue commands read their in-flight counts from (with `consumers`). */
  acks?: QueueServices['acks'];
  /** The live sessions of a realm (`end_sessions`). */
  sessions?: ManagementServices['sessions'];
  /** MQTT retained messages (`list_retained`, `delete_retained`). */
  retained?: RetainedServices;
  /** The broker's resources and alarms (`resources`). */
  resources?: ResourceServices;
  /** The E2EE extension state (`list_identities`, `revoke_identity_key`). */
  identities?: IdentityServices;
  /** Every pending authorization request, oldest first (`list_requests`). */
  pendingRequests?: ManagementServices['pendingRequests'];
  /** Online backup of the SQLite stores (`backup_store`); absent → 501. */
  backup?: ManagementServices['backup'];
  /** The broker's DLQ replay (queue accounting included); default `dlqReplayer(deps)`. */
  replayDlq?: (msgId: string, realm?: string) => Promise<StoredEntry | null>;
}

/** DLQ replay (`spec/protocol-core.md` §10.5) plus a nudge to an online consumer. */
export function dlqReplayer(
  deps: Pick<ManagementDeps, 'store' | 'realms' | 'replayer' | 'metrics'>,
) {
  const { store, realms, replayer, metrics } = deps;
  return async (msgId: string, realm?: string): Promise<StoredEntry | null> => {
    const entry = await store.replayDlq(msgId, realm);
    if (!entry) return null;
    metrics?.messageQueued(entry.realm);
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
  };
}

/** The services plus the lifecycle to stop on close. Starts the lifecycle (sweep + timer). */
export function createManagement(deps: ManagementDeps): ManagementServices {
  const { settings, auth, realms, store, logger } = deps;
  const lifecycle = new RealmLifecycle({
    auth,
    realms,
    store,
    logger,
    sockets: deps.sockets,
    purgeRequests: deps.purgeRequests,
    realmPurged: deps.realmPurged,
    purgeMqtt: deps.purgeMqtt,
    purgeExtensions: deps.purgeExtensions,
  });
  let persistence: PersistenceView = {
    storage: settings().storage,
    storage_options: { ...settings().storage_options },
  };
  const services: ManagementServices = {
    auth,
    lifecycle,
    logger,
    store,
    replayDlq: deps.replayDlq ?? dlqReplayer(deps),
    persistence: () => persistence,
    setPersistence: (view) => {
      // Recorded and reported; the running store is not swapped (docs/management.md).
      persistence = view;
      logger.warn({ storage: view.storage }, 'persistence change recorded; applies at next start');
    },
    namespaces: () => settings().namespaces,
    allowCustomStorage: () => settings().allow_custom_storage,
    stats: () => collectStats(deps.getStats(), store, realms, Object.keys(auth.config.realms)),
    reloadSettings: deps.reloadSettings,
    realmData: deps.realmData,
    renames: deps.renames,
    consumers: deps.consumers && { realms, ...deps.consumers },
    queues: deps.consumers &&
      deps.acks && {
        ...{ realms, store, ledger: deps.consumers.ledger, acks: deps.acks },
        ...{ replayer: deps.replayer, logger },
      },
    pendingRequests: deps.pendingRequests,
    sessions: deps.sessions,
    clients: deps.clients,
    backup: deps.backup,
    retained: deps.retained,
    resources: deps.resources,
    identities: deps.identities,
  };
  lifecycle.start();
  return services;
}
