/**
 * The ConsoleApi contract: the only door between the console's renderer and its main process
 * (Electron IPC) or web host (HTTP + WebSocket). Declared once, with zod schemas that both
 * transports validate against.
 *
 * Source: ARCHITECTURE §1 ("ConsoleApi is the only door to the renderer"). Results are
 * `{ok: true, value} | {ok: false, error: {code, message}}`; secrets never appear in a result.
 */
import { z } from 'zod';
import type { ErrorInfo } from './error-catalogue';
import { HealthSchema, StatsSchema } from './http-api';
import { ConnectionsEvents, ConnectionsMethods } from './console-api-connections';
import { ActivityEvents, ActivityMethods } from './console-api-activity';
import { RealmsEvents, RealmsMethods } from './console-api-realms';
import { OperationsEvents, OperationsMethods } from './console-api-operations';
import { QueuesMethods } from './console-api-queues';
import { ResourcesMethods } from './console-api-resources';
import { RetainedMethods } from './console-api-retained';
import { CommandsMethods } from './console-api-commands';
import { DefinitionsMethods } from './console-api-definitions';
import { IdentityMethods } from './console-api-identities';
import { LocalEvents, localMethods } from './console-api-local';
import { TapEvents, TapMethods } from './console-api-tap';
import { MqttPublishMethods } from './console-api-mqtt-publish';
import { TopicsEvents, TopicsMethods } from './console-api-topics';
import { ClusterRelaySchema } from './console-api-cluster';
import { ConfirmMethods } from './console-api-confirm';
import type {
  CONSOLE_EVENT_NAMES as CONSOLE_EVENT_NAME_LIST,
  CONSOLE_METHOD_NAMES as CONSOLE_METHOD_NAME_LIST,
} from './console-channels';

/** Lifecycle of the supervised local broker process. */
export const LocalBrokerState = z.enum(['starting', 'running', 'restarting', 'stopped', 'failed']);
export type LocalBrokerState = z.infer<typeof LocalBrokerState>;

/** Supervisor view of the local broker. Times are epoch ms. */
export const LocalBrokerStatusSchema = z.object({
  state: LocalBrokerState,
  port: z.number().int(),
  pid: z.number().int().nullable(),
  /** Restarts after crashes since the console started. */
  restarts: z.number().int().nonnegative(),
  startedAt: z.number().nullable(),
  lastError: z.string().nullable(),
  dataDir: z.string(),
  /** Bound MQTT TCP port, null until the broker reports one (or without MQTT); kept across
   * restarts of one console run. */
  mqttPort: z.number().int().nullable(),
  /** Bound MQTT-over-WebSocket port (`mqtt.ws_port` in the settings file), else null. */
  mqttWsPort: z.number().int().nullable(),
});
export type LocalBrokerStatus = z.infer<typeof LocalBrokerStatusSchema>;

/** Message counters summed over realms and events from `/api/metrics`. */
export const CountersSchema = z.object({
  produced: z.number().nonnegative(),
  delivered: z.number().nonnegative(),
  connectionsTotal: z.number().nonnegative(),
  connectionsCurrent: z.number().nonnegative(),
  /** Relay counters of a clustered broker (console-api-cluster.ts); absent otherwise. */
  cluster: ClusterRelaySchema.optional(),
});
export type Counters = z.infer<typeof CountersSchema>;

/**
 * One sample of a broker, as read over the wire (`/health`, `/api/stats`, `/api/metrics`).
 * `reachable` is false when the last scrape failed; `error` then says why.
 */
export const OverviewSchema = z.object({
  connectionId: z.string(),
  name: z.string(),
  url: z.string(),
  reachable: z.boolean(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  health: HealthSchema.nullable(),
  stats: StatsSchema.nullable(),
  counters: CountersSchema.nullable(),
  /** Messages per second over the last two samples; null until two samples exist. */
  rates: z.object({ produced: z.number(), delivered: z.number() }).nullable(),
  local: LocalBrokerStatusSchema.nullable(),
  /**
   * This console's own socket.io connections to the broker (its management connection and its
   * live taps), which the broker counts in `counters.connectionsCurrent` like any client; absent
   * when not known. Read when the sample is sent, so it may lead or lag the broker's figure.
   */
  consoleConnections: z.number().int().nonnegative().optional(),
  /** Wall-clock time of the sample, epoch ms: for display only (the clock may step back). */
  sampledAt: z.number(),
  /** Increases by one with every sample of this connection in this console process: order
   * samples by `seq`, never by `sampledAt`. */
  seq: z.number().int().nonnegative(),
});
export type Overview = z.infer<typeof OverviewSchema>;

/** Id of the built-in "Local broker" connection profile. */
export const LOCAL_CONNECTION_ID = 'local';

const ConnectionId = z.string().min(1).max(128);
const ConnectionIdInput = z.object({ connectionId: ConnectionId }).strict();
const NoInput = z.object({}).strict();

/** Roles a token can carry (`spec/protocol-admin.md` §3). */
export const TokenRole = z.enum(['producer', 'consumer', 'both', 'manager', 'admin']);
export type TokenRole = z.infer<typeof TokenRole>;

/**
 * Roles an approval may grant: every token role but `admin`, which the broker refuses for an
 * authorization request (`spec/protocol-admin.md` §7.5 hardening (d)).
 */
export const ApprovalRole = z.enum(['producer', 'consumer', 'both', 'manager']);
export type ApprovalRole = z.infer<typeof ApprovalRole>;

/**
 * A pending (or just decided) authorization request as the console shows it: the broker's public
 * request (§7.4) without `client_token_hash`. Times are epoch ms.
 */
export const AuthorizationRequestSchema = z.object({
  requestId: z.string(),
  status: z.string(),
  realm: z.string(),
  role: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  /** The requester's opaque challenge response (§7.1), as JSON text; null when none. */
  challenge: z.string().nullable(),
  createdAt: z.number().nullable(),
  decidedAt: z.number().nullable(),
  decisionReason: z.string().nullable(),
});
export type AuthorizationRequest = z.infer<typeof AuthorizationRequestSchema>;

/**
 * The oldest pending request of a connection (§7.2), or null when the queue is empty, and how
 * many are pending (`total`: every one on a Switchboard broker; 0 or 1 on a broker that only
 * answers `AUTHORIZATION_NEXT`).
 */
export const PendingRequestSchema = z.object({
  connectionId: z.string(),
  request: AuthorizationRequestSchema.nullable(),
  total: z.number().int().nonnegative(),
});
export type PendingRequest = z.infer<typeof PendingRequestSchema>;

/**
 * Who may connect as a consumer (issue 20): `open` (auth off, or the realm does not require
 * auth), `token` (a token or JWT), `token-or-key` (a token, a JWT or the realm's pre-shared key),
 * `tokenless` (anyone: the realm opted into the reference's token-less consumers).
 */
export const ConsumerAccessSchema = z.enum(['open', 'token', 'token-or-key', 'tokenless']);
export type ConsumerAccess = z.infer<typeof ConsumerAccessSchema>;

/**
 * One realm from the broker's public settings (§8.4, §3.5): secrets are only ever "configured"
 * flags. `expiresAt` is epoch ms (ephemeral realms), else null; `ttlMs` the lifetime that set it. `tokenlessConsumers` is the
 * realm's `allow_tokenless_consumers` setting; `consumerAccess` what it means with the others.
 */
export const RealmSummarySchema = z.object({
  name: z.string(),
  authRequired: z.boolean(),
  keyConfigured: z.boolean(),
  keyRequired: z.boolean(),
  managerKeyConfigured: z.boolean(),
  acceptanceRequired: z.boolean(),
  tokenlessConsumers: z.boolean(),
  consumerAccess: ConsumerAccessSchema,
  ephemeral: z.boolean(),
  expiresAt: z.number().nullable(),
  /** The lifetime, ms, that set `expiresAt` (the broker's `ttl_ms`); null when permanent or
   * unknown (a broker that does not keep it). */
  ttlMs: z.number().nullable(),
});
export type RealmSummary = z.infer<typeof RealmSummarySchema>;

/**
 * A realm clients are using that the broker's settings do not configure (no `auth.realms` entry:
 * open when auth is off, else governed by the broker-wide defaults), from the `stats` command.
 */
export const RealmInUseSchema = z.object({
  name: z.string(),
  /** Online producers and consumers, as the broker's `stats` counts them. */
  producers: z.number(),
  consumers: z.number(),
});
export type RealmInUse = z.infer<typeof RealmInUseSchema>;

export const RealmListSchema = z.object({
  connectionId: z.string(),
  authEnabled: z.boolean(),
  realms: z.array(RealmSummarySchema),
  /** Realms in use but not configured (empty when the broker's `stats` is not available). */
  inUse: z.array(RealmInUseSchema),
});
export type RealmList = z.infer<typeof RealmListSchema>;

/**
 * Request/response methods. `input` is validated by the transport before the service runs;
 * `output` documents (and in tests checks) what the service returns.
 */
export const ConsoleMethods = {
  /** Latest sample of a connection; `SWB_ERR_NOT_FOUND` for an unknown id. */
  getOverview: { input: ConnectionIdInput, output: OverviewSchema },
  /** Status of the supervised local broker. */
  getLocalBroker: { input: NoInput, output: LocalBrokerStatusSchema },
  /** Stops and starts the local broker; resolves once it is running again. */
  restartLocalBroker: { input: NoInput, output: LocalBrokerStatusSchema },
  /**
   * The oldest pending authorization request (signed `AUTHORIZATION_NEXT`, §7.2), optionally of
   * one realm. Errors: `SWB_ERR_NOT_FOUND`, `SWB_ERR_BROKER_UNREACHABLE` (no answer in 5 s),
   * `SWB_ERR_UNAUTHORIZED` (credential refused).
   */
  nextRequest: {
    input: z
      .object({ connectionId: ConnectionId, realm: z.string().min(1).max(256).optional() })
      .strict(),
    output: PendingRequestSchema,
  },
  /**
   * Approves (with an optional role overriding the requested one) or rejects (with an optional
   * reason) a pending request (signed `AUTHORIZATION_DECIDE`, §7.3). Errors as `nextRequest`, plus
   * `SWB_ERR_NOT_FOUND` when it is no longer pending.
   */
  decideRequest: {
    input: z
      .object({
        connectionId: ConnectionId,
        requestId: z.string().min(1).max(256),
        approved: z.boolean(),
        role: ApprovalRole.optional(),
        reason: z.string().max(1_000).optional(),
      })
      .strict(),
    output: AuthorizationRequestSchema,
  },
  /** The connection's realms from the `get` command's public settings (§8.4). Errors as above. */
  listRealms: { input: ConnectionIdInput, output: RealmListSchema },
  ...ConnectionsMethods,
  ...RealmsMethods,
  ...ActivityMethods,
  ...OperationsMethods,
  ...QueuesMethods,
  ...RetainedMethods,
  ...CommandsMethods,
  ...DefinitionsMethods,
  ...IdentityMethods,
  ...ResourcesMethods,
  ...TapMethods,
  ...MqttPublishMethods,
  ...TopicsMethods,
  ...localMethods(LocalBrokerStatusSchema),
  ...ConfirmMethods,
} as const;

/** Server-pushed event streams, each with its payload schema. */
export const ConsoleEvents = {
  /** A fresh sample of a connection, at least once a second. */
  overview: OverviewSchema,
  /** The local broker's lifecycle changed. */
  localBroker: LocalBrokerStatusSchema,
  /** The oldest pending authorization request of a connection changed (checked every second). */
  pendingRequest: PendingRequestSchema,
  ...ConnectionsEvents,
  ...RealmsEvents,
  ...ActivityEvents,
  ...OperationsEvents,
  ...TapEvents,
  ...TopicsEvents,
  ...LocalEvents,
} as const;

export type ConsoleMethodName = keyof typeof ConsoleMethods;
export type ConsoleEventName = keyof typeof ConsoleEvents;
export type MethodInput<M extends ConsoleMethodName> = z.input<(typeof ConsoleMethods)[M]['input']>;
export type MethodOutput<M extends ConsoleMethodName> = z.infer<
  (typeof ConsoleMethods)[M]['output']
>;
export type EventPayload<E extends ConsoleEventName> = z.infer<(typeof ConsoleEvents)[E]>;

/** Result of every ConsoleApi call. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

/**
 * What a call may carry besides its input: the `confirmation` a dangerous call needs
 * (`shared/console-api-confirm.ts`); the transport takes it off before validating the input.
 */
export interface CallExtras {
  confirmation?: string;
}

/** The ConsoleApi as the renderer sees it: one async method per entry of `ConsoleMethods`. */
export type ConsoleApi = {
  [M in ConsoleMethodName]: (
    input: MethodInput<M> & CallExtras,
  ) => Promise<Result<MethodOutput<M>>>;
} & {
  /** Subscribes to an event stream; returns the unsubscribe function. */
  on<E extends ConsoleEventName>(
    event: E,
    listener: (payload: EventPayload<E>) => void,
  ): () => void;
  /**
   * Says which connections this client shows: events that name a `connectionId` are delivered
   * only for these (default: the local broker alone). Replaces the previous set. Optional: a
   * transport without per-client subscriptions delivers everything.
   */
  watchConnections?(connectionIds: readonly string[]): void;
};

/** Methods a transport answers itself, not the service (confirmation tokens). */
export type TransportMethodName = 'confirmCall';
/** Methods the service implements. */
export type ServiceMethodName = Exclude<ConsoleMethodName, TransportMethodName>;

/** The service side: what the main process / web host implements behind a transport. */
export type ConsoleService = {
  [M in ServiceMethodName]: (
    input: z.infer<(typeof ConsoleMethods)[M]['input']>,
  ) => Promise<MethodOutput<M>>;
} & {
  on<E extends ConsoleEventName>(
    event: E,
    listener: (payload: EventPayload<E>) => void,
  ): () => void;
};

export { CONSOLE_EVENT_NAMES, CONSOLE_METHOD_NAMES, ConsoleChannel } from './console-channels';

// The zod-free name lists must match the schemas' keys exactly (checked by the compiler).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _namesMatch: Same<ConsoleMethodName, (typeof CONSOLE_METHOD_NAME_LIST)[number]> &
  Same<ConsoleEventName, (typeof CONSOLE_EVENT_NAME_LIST)[number]> = true;
void _namesMatch;

/** Frames on the web host's event WebSocket. */
export type ConsoleSocketFrame =
  | { type: 'hello'; token: string }
  | { type: 'ready' }
  /** Client → host, any time after `ready`: the connections whose events it wants. */
  | { type: 'watch'; connectionIds: string[] }
  | { type: 'event'; event: ConsoleEventName; payload: unknown };
