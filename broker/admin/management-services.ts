/**
 * The shapes the management commands (`spec/protocol-admin.md` §8.1–§8.2) run against:
 * `ManagementServices` (wired once by the broker's composition root), a command's `CommandSpec`
 * and its `Result`. The catalogue itself is `COMMANDS` in management-commands.ts.
 */
import type { AuthState } from '../auth/auth-state';
import type { Logger } from '../logging/logger';
import type { BackupServices } from './backup-commands';
import type { CommandBody, ManagerScope } from './command-types';
import type { ClientServices } from './client-commands';
import type { ConsumerServices } from './consumer-commands';
import type { IdentityServices } from './identity-commands';
import type { DlqServices } from './dlq-commands';
import type { QueueServices } from './queue-commands';
import type { RequestServices } from './request-commands';
import type { ResourceServices } from './resource-commands';
import type { RetainedServices } from './retained-commands';
import type { RealmSessions } from './realm-sessions';
import type { PersistenceView } from './public-settings';
import type { RealmDataMover } from './realm-data-move';
import type { RealmLifecycle } from './realm-lifecycle';
import type { AdminStats } from './stats-command';

/** What the commands act on; wired once by the broker's composition root. */
export interface ManagementServices extends DlqServices, RequestServices, BackupServices {
  readonly auth: AuthState;
  readonly lifecycle: RealmLifecycle;
  readonly logger: Logger;
  /** Current `{storage, storage_options}` (§8.4 `persistence`). */
  persistence(): PersistenceView;
  /** Applies a validated `set_persistence`; may throw (→ 400 with its message). */
  setPersistence(view: PersistenceView): void;
  /** The configured `namespaces` settings block (§16), for the public view. */
  namespaces(): unknown;
  /** Top-level settings key `allow_custom_storage` (§8.4 note). */
  allowCustomStorage(): boolean;
  stats(): Promise<AdminStats>;
  /** The registry and queues `remove_consumer` acts on; absent → 501. */
  consumers?: ConsumerServices;
  /** Per-connection records (`client_detail`, `close_client`); absent → 501. */
  clients?: ClientServices;
  /** The ledger, registries and ACK tracker the queue commands read; absent → 501. */
  queues?: QueueServices;
  /** Moves a renamed realm's data (`rename_realm`); absent = only the config moves. */
  realmData?: RealmDataMover;
  /** MQTT retained messages (`list_retained`, `delete_retained`); absent → 501. */
  retained?: RetainedServices;
  /** The broker's resources and alarms (`resources`); absent → 501. */
  resources?: ResourceServices;
  /** The E2EE extension state (`list_identities`, `revoke_identity_key`); absent → 501. */
  identities?: IdentityServices;
  /** Re-read (merge) of the watched settings file; absent when no file is watched. */
  reloadSettings?: () => unknown;
  /** The live sessions of a realm (`end_sessions`, `ended_sessions` of key changes). */
  sessions?: RealmSessions;
  /** Tells the other nodes of a cluster about a rename (cluster/realm-renames.ts); absent alone. */
  renames?: RealmRenameNotices;
  now?: () => number;
}

/**
 * A `rename_realm` seen by the rest of a cluster: `begin` before the config changes (the
 * cluster's settings publication waits), then `announce` once the data moved here (every
 * other node moves its own) or `cancel` when the rename failed or was reverted.
 */
export interface RealmRenameNotices {
  begin(from: string, to: string): { announce(): Promise<void>; cancel(): void };
}

export type Result = { ok: true } & Record<string, unknown>;
export type Extras = Record<string, unknown>;

export interface CommandSpec {
  readonly privilege: 'A' | 'A/R';
  /**
   * A store command (`stats`, `dlq_*`): without an ack its failures go to AUTH_MANAGEMENT_FAIL;
   * settings commands answer AUTH_MANAGEMENT_RESULT even when `ok` is false (§8.1 quirk).
   */
  readonly async: boolean;
  /**
   * Reads and changes nothing (`get`, `stats`, `dlq_list`): a console polls these every few
   * seconds, so a success is logged at debug; every other command, and any refusal, at info.
   */
  readonly readOnly?: boolean;
  run(
    services: ManagementServices,
    body: CommandBody,
    scope: ManagerScope,
  ): Result | Promise<Result>;
}
