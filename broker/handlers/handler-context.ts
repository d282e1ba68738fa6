/**
 * What every inbound-event handler receives: the broker's services, wired once by
 * `createBroker` (the composition root).
 */
import type { ClientEventName } from '../../shared/protocol-events';
import type { AuthState } from '../auth/auth-state';
import type { AuthorizationRequests } from '../auth/authorization-requests';
import type { NonceStore } from '../auth/nonce-store';
import type { TokenValidator } from '../auth/token-validator';
import type { ManagementServices } from '../admin/management-commands';
import type { ClusterRequestBook } from '../cluster/shared-auth-requests';
import type { ClusterNonceClaimer } from '../cluster/shared-nonces';
import type { Settings } from '../config/settings-schema';
import type { AckTracker } from '../delivery/ack-tracker';
import type { ChunkAssembler } from '../delivery/chunk-assembler';
import type { Delivery } from '../delivery/delivery';
import type { Embedding } from '../policy/embedding';
import type { QueueLedger } from '../delivery/queue-ledger';
import type { Replayer } from '../delivery/replay';
import type { MessageStore } from '../storage/message-store';
import type { LimitsService } from '../limits/limits-service';
import type { TicketStore } from '../namespaces/remote/ticket-store';
import type { Logger } from '../logging/logger';
import type { RepeatedWarnings } from '../logging/repeated-warnings';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { RealmDirectory } from '../routing/realm-directory';
import type { SubscriptionPersistence } from '../routing/subscription-persistence';
import type { Router } from '../routing/router';
import type { BrokerSocket } from '../transport/socket-types';
import type { PendingWork } from './pending-work';
import type { SocketClients } from '../clients/socket-clients';
import type { ExtensionState } from '../extensions/extension-state';

export interface HandlerContext {
  /** The settings in force: a getter over the live settings, so reloads apply at once. */
  readonly settings: Settings;
  /** Claimed manager-proof nonces (SQLite when the auth store is active, else memory). */
  readonly nonces: NonceStore;
  readonly realms: RealmDirectory;
  /** Async handler work in progress (durable writes, confirms), awaited by a shutdown. */
  readonly pending: PendingWork;
  readonly router: Router;
  readonly delivery: Delivery;
  readonly acks: AckTracker;
  readonly chunks: ChunkAssembler;
  readonly store: MessageStore;
  /** Queue depths, caps and ownership of stored copies; removals go through it. */
  readonly ledger: QueueLedger;
  readonly replayer: Replayer;
  readonly persistence: SubscriptionPersistence;
  readonly metrics: BrokerMetrics;
  readonly logger: Logger;
  /**
   * Warnings a client can repeat at will (unknown events, events dropped while authenticating):
   * the first of a key in full, then one count per 10 s window. Closed with the broker.
   */
  readonly repeated: RepeatedWarnings;
  /** The live `auth` configuration (`spec/protocol-admin.md` §12.2). */
  readonly auth: AuthState;
  /** Token validation pipeline of §4 (JWTs, static tokens, external validators). */
  readonly tokens: TokenValidator;
  /**
   * Epoch ms before which proof timestamps are refused: process start with an in-memory nonce
   * store (§6.4 note (b)), 0 with a persistent one.
   */
  readonly proofsNotBefore: number;
  /** Pending and decided authorization requests (§7). */
  readonly authRequests: AuthorizationRequests;
  /** Clustered: proof nonces claimed in Redis too (§6.4; docs/cluster.md). */
  readonly clusterNonces?: ClusterNonceClaimer;
  /** Clustered: the requests of every node, in `<prefix>:authreqs` (§7, §15). */
  readonly clusterRequests?: ClusterRequestBook;
  /** Management commands' services (`spec/protocol-admin.md` §8), wired by createBroker. */
  readonly management: ManagementServices;
  /** Rate limits and quotas (`spec/protocol-admin.md` §11). */
  readonly limits: LimitsService;
  /** One-time tickets of the `/remote` namespace (`spec/protocol-admin.md` §16.2). */
  readonly remoteTickets: TicketStore;
  /** socket.io `pingInterval` in ms, for half-open detection (Note 5.2-A). */
  readonly pingIntervalMs: number;
  /** Extra silence, beyond `pingIntervalMs`, after which a socket counts as half-open. */
  readonly halfOpenMarginMs: number;
  /** The embedding API's hooks and events (docs/embedding.md); absent in bare test contexts. */
  readonly embed?: Embedding;
  /** Per-connection records and history (`client_detail`, issue 27); absent in bare contexts. */
  readonly clients?: SocketClients;
  /** The extension families' per-identity state: pins, the key directory (§1.5, §2). */
  readonly extensions: ExtensionState;
  /** Runs an event through the dispatcher's pipeline (used for reassembled chunks). */
  readonly dispatch: (
    socket: BrokerSocket,
    event: ClientEventName,
    raw: unknown,
    ack: unknown,
  ) => void;
}

/** A handler of one client event, called after parsing and validation. */
export type EventHandler<T> = (
  ctx: HandlerContext,
  socket: BrokerSocket,
  payload: T,
  ack: ((reply: unknown) => void) | undefined,
) => void;
