/**
 * The tyo-mq wire protocol's event names, constants and name-composition rules.
 *
 * Source: `spec/protocol-core.md` §2 (constants and composition), §3 (client → server
 * events) and §4 (server → client events). Every event name used by the broker, the
 * console and the tests comes from here; nothing else spells them as string literals.
 */

/** Events a client sends to the broker (§3). */
export const ClientEvent = {
  AUTHENTICATION: 'AUTHENTICATION',
  CONSUMER: 'CONSUMER',
  PRODUCER: 'PRODUCER',
  SUBSCRIBE: 'SUBSCRIBE',
  UNSUBSCRIBE: 'UNSUBSCRIBE',
  PRODUCE: 'PRODUCE',
  PRODUCE_CHUNK: 'PRODUCE_CHUNK',
  ACK: 'ACK',
  PING: 'PING',
  HELLO: 'HELLO',
  DEBUG: 'DEBUG',
  QUIT: 'QUIT',
  /** Ungated: a client asks a manager for a token (`spec/protocol-admin.md` §7.1). */
  AUTHORIZATION_REQUEST: 'AUTHORIZATION_REQUEST',
  /** Proof-gated: the oldest pending authorization request (§7.2). */
  AUTHORIZATION_NEXT: 'AUTHORIZATION_NEXT',
  /** Proof-gated: approve or reject an authorization request (§7.3). */
  AUTHORIZATION_DECIDE: 'AUTHORIZATION_DECIDE',
  /** Signed management command (`spec/protocol-admin.md` §8); proof-gated, not socket-gated. */
  AUTH_MANAGEMENT_COMMAND: 'AUTH_MANAGEMENT_COMMAND',
  /** One-time ticket for the `/remote` namespace (`spec/protocol-admin.md` §16.2). */
  REMOTE_TICKET_REQUEST: 'REMOTE_TICKET_REQUEST',
  /** tyo-mq 1.1: publish an E2EE public key (`spec/protocol-extensions.md` §2.1). */
  KEY_PUBLISH: 'KEY_PUBLISH',
  /** tyo-mq 1.1: look up an identity's E2EE public keys (`spec/protocol-extensions.md` §2.2). */
  KEY_LOOKUP: 'KEY_LOOKUP',
  /** tyo-mq 1.1: publish a Signal prekey bundle (`spec/protocol-extensions.md` §3.1). */
  PREKEY_PUBLISH: 'PREKEY_PUBLISH',
  /** tyo-mq 1.1: take an identity's bundle and one one-time prekey (`…extensions.md` §3.2). */
  PREKEY_TAKE: 'PREKEY_TAKE',
  /** tyo-mq 1.1: a broker-signed sender certificate (`spec/protocol-extensions.md` §4.4). */
  SEALED_CERT_REQUEST: 'SEALED_CERT_REQUEST',
  /** tyo-mq 1.1: set the recipient's unidentified access key (§4.5). */
  SEALED_UAK_SET: 'SEALED_UAK_SET',
  /** tyo-mq 1.1: deliver a sealed-sender blob to (realm, identity) (§4.6). */
  SEALED_DELIVER: 'SEALED_DELIVER',
  /** tyo-mq 1.1: drain the caller's offline sealed inbox (§4.8). */
  SEALED_SUBSCRIBE: 'SEALED_SUBSCRIBE',
  /** tyo-mq 1.1: register a push endpoint for an identity (`spec/protocol-extensions.md` §6.2). */
  PUSH_REGISTER: 'PUSH_REGISTER',
  /** tyo-mq 1.1: remove a push endpoint (`spec/protocol-extensions.md` §6.3). */
  PUSH_UNREGISTER: 'PUSH_UNREGISTER',
} as const;
export type ClientEventName = (typeof ClientEvent)[keyof typeof ClientEvent];

/** Fixed-name events the broker sends (§4); composed names are built by the helpers below. */
export const ServerEvent = {
  CONSUME_CHUNK: 'CONSUME_CHUNK',
  ACK_OK: 'ACK_OK',
  ACK_FAIL: 'ACK_FAIL',
  ERROR: 'ERROR',
  AUTH_OK: 'AUTH_OK',
  AUTH_FAIL: 'AUTH_FAIL',
  RATE_LIMITED: 'RATE_LIMITED',
  /** Replies of the authorization-request flow (`spec/protocol-admin.md` §1, §7). */
  AUTHORIZATION_REQUEST_OK: 'AUTHORIZATION_REQUEST_OK',
  AUTHORIZATION_REQUEST_FAIL: 'AUTHORIZATION_REQUEST_FAIL',
  AUTHORIZATION_NEXT_RESULT: 'AUTHORIZATION_NEXT_RESULT',
  AUTHORIZATION_DECIDE_RESULT: 'AUTHORIZATION_DECIDE_RESULT',
  AUTHORIZATION_FAIL: 'AUTHORIZATION_FAIL',
  /** Pushed to the requesting socket when its request is decided (§7.3). */
  AUTHORIZATION_APPROVED: 'AUTHORIZATION_APPROVED',
  AUTHORIZATION_REJECTED: 'AUTHORIZATION_REJECTED',
  /** Reply to `AUTH_MANAGEMENT_COMMAND` without an ack (`spec/protocol-admin.md` §8.1). */
  AUTH_MANAGEMENT_RESULT: 'AUTH_MANAGEMENT_RESULT',
  /** Failure reply to `AUTH_MANAGEMENT_COMMAND` without an ack (§8.1 quirk). */
  AUTH_MANAGEMENT_FAIL: 'AUTH_MANAGEMENT_FAIL',
  REMOTE_TICKET: 'REMOTE_TICKET',
  REMOTE_TICKET_FAIL: 'REMOTE_TICKET_FAIL',
  /** A sealed-sender blob for this socket's identity, `{blob, msg_id}` (extensions §4.7). */
  SEALED_MESSAGE: 'SEALED_MESSAGE',
} as const;
export type ServerEventName = (typeof ServerEvent)[keyof typeof ServerEvent];

/** Protocol constants (§2.1). */
export const Protocol = {
  ANONYMOUS: 'ANONYMOUS',
  /** Producer wildcard: "this event from any producer". */
  ALL_PUBLISHERS: 'TYO-MQ-ALL',
  /** Event wildcard: "every event of this producer". */
  EVENT_ALL: 'TM-ALL',
  /** Client-side default event of `produce(data)`; the broker does not treat it specially. */
  EVENT_DEFAULT: 'tyo-mq-mt-default',
  SCOPE_ALL: 'all',
  SCOPE_DEFAULT: 'default',
  DEFAULT_PORT: 17352,
  DEFAULT_REALM: 'default',
  ADMIN_REALM: '*',
  /** Chunk threshold and slice size, in UTF-16 code units of the JSON text (§14). */
  CHUNK_SIZE: 262_144,
  /** Reply of `PING` (§3.7). */
  PONG: 'PONG',
} as const;

const lc = (s: string): string => s.toLowerCase();

/** Subscription key for `(producer, event)`: `lc(P + "-" + E)` (§2.2). */
export function subscriptionKey(producer: string, event: string): string {
  return lc(`${producer}-${event}`);
}

/** Key of the "every event from P" subscription: `lc(P) + "-TM-ALL"` (§2.2, Note 2.3-A). */
export function allEventsKey(producer: string): string {
  return `${lc(producer)}-${Protocol.EVENT_ALL}`;
}

/** Key of an any-producer subscription: `lc("TYO-MQ-ALL-" + E)` (§2.2). */
export function anyProducerKey(event: string): string {
  return subscriptionKey(Protocol.ALL_PUBLISHERS, event);
}

/** Delivery event for a subscription key: `"CONSUME-" + key`, the key not re-cased (§2.2). */
export function consumeEvent(key: string): `CONSUME-${string}` {
  return `CONSUME-${key}`;
}

/** Realm-broadcast volatile extra: `lc(P) + "-TM-ALL-CONSUME"` (§13.1). */
export function broadcastVolatileEvent(producer: string): `${string}-TM-ALL-CONSUME` {
  return `${lc(producer)}-TM-ALL-CONSUME`;
}

/** `SUBSCRIBE-TO-<producerId>`: sent to a producer when a consumer subscribes to it (§4). */
export function subscribeToEvent(producerId: string): `SUBSCRIBE-TO-${string}` {
  return `SUBSCRIBE-TO-${producerId}`;
}

/** `CONNECT-<id>`: peer-online notification (§4). */
export function connectEvent(id: string): `CONNECT-${string}` {
  return `CONNECT-${id}`;
}

/** `DISCONNECT-<id>`: peer-offline notification (§4). */
export function disconnectEvent(id: string): `DISCONNECT-${string}` {
  return `DISCONNECT-${id}`;
}

/** `ERROR` codes used by core messaging (§4). Codes -2 and -5 are unused by the protocol. */
export const ProtocolErrorCode = {
  BAD_FIELD: -1,
  DUPLICATE_CONSUMER: -3,
  ANONYMOUS_REFUSED: -4,
  E2EE_REQUIRED: -6,
  /** Switchboard extension: a limit (size, partial transfers) was exceeded. */
  LIMIT_EXCEEDED: -7,
  /** Switchboard extension: a durable copy could not be stored (store error or queue cap). */
  NOT_STORED: -8,
  /**
   * Switchboard extension: a durable `SUBSCRIBE` names a `consumer_id` owned by another
   * connection or principal (`spec/protocol-extensions.md` Note 1.5-A; docs/e2ee.md).
   */
  IDENTITY_NOT_OWNED: -9,
} as const;

/** Verbatim `ERROR` texts the reference sends and clients may match on (§4). */
export const ProtocolErrorText = {
  BAD_CONSUMER_NAME: "Incorrect consumer's name",
  BAD_PRODUCER_NAME: "Incorrect producer's name",
  SUBSCRIBE_WITHOUT_EVENT: 'Message name should be a object',
  PRODUCER_NEWLY_JOINED: 'The same producer newly joined',
} as const;

/** The admin surface's error object (`spec/protocol-admin.md` §1): HTTP-ish codes. */
export interface AdminFailure {
  ok: false;
  code: number;
  message: string;
}

/** Object form of an `ERROR` payload (§4); some errors are bare strings instead. */
export interface ProtocolError {
  message: string;
  code: number;
}

/** The delivery envelope of every `CONSUME-<key>` event (§8). */
export interface DeliveryEnvelope {
  event: string;
  message: unknown;
  from: string;
  enc?: unknown;
  to?: unknown;
  content_type?: unknown;
  msgId?: string;
  msg_id?: string;
  delivery_attempt?: number;
  /** Switchboard: how many times this message was replayed from the DLQ (docs/management.md). */
  replay_count?: number;
  /** Switchboard: ISO time this message was first dead-lettered (kept across replays). */
  first_dead_lettered_at?: string;
}

/** One frame of a chunked delivery (§14.2). */
export interface ConsumeChunkFrame {
  transferId: string;
  event: string;
  index: number;
  total: number;
  data: string;
}

/** One frame of a chunked `PRODUCE` (§14.1). */
export interface ProduceChunkFrame {
  transferId: string;
  index: number;
  total: number;
  data: string;
}

/** Reply of `PING` once parsed (§3.7): the request fields plus `pong` and an ISO `timestamp`. */
export interface PingReply {
  pong: typeof Protocol.PONG;
  timestamp: string;
  [field: string]: unknown;
}

/** `ACK_OK` / `ACK_FAIL` payloads (§3.6). */
export type AckReply = { ok: true; msgId: string } | { ok: false; code: number; message: string };

type Ack<T> = (reply: T) => void;

/**
 * Reply of a management command (`spec/protocol-admin.md` §8.1): `{ok:true, …result}` or the
 * protocol's error shape `{ok:false, code, message}` (HTTP-ish codes 400–501).
 */
export type ManagementReply =
  ({ ok: true } & Record<string, unknown>) | { ok: false; code: number; message: string };

/**
 * Client → server event map for socket.io's typed `Server`/`Socket` (§3). Payloads are
 * `unknown` on purpose: every one is validated by the broker before use (§19).
 */
export interface ClientToServerEvents {
  AUTHENTICATION: (payload: unknown) => void;
  CONSUMER: (payload: unknown) => void;
  PRODUCER: (payload: unknown) => void;
  SUBSCRIBE: (payload: unknown) => void;
  UNSUBSCRIBE: (payload: unknown) => void;
  PRODUCE: (payload: unknown, ack?: Ack<unknown>) => void;
  PRODUCE_CHUNK: (payload: unknown, ack?: Ack<unknown>) => void;
  ACK: (payload: unknown, ack?: Ack<AckReply>) => void;
  PING: (payload: unknown, ack?: Ack<string>) => void;
  HELLO: (payload: unknown) => void;
  DEBUG: (payload: unknown) => void;
  QUIT: (payload: unknown) => void;
  AUTHORIZATION_REQUEST: (payload: unknown, ack?: Ack<unknown>) => void;
  AUTHORIZATION_NEXT: (payload: unknown, ack?: Ack<unknown>) => void;
  AUTHORIZATION_DECIDE: (payload: unknown, ack?: Ack<unknown>) => void;
  AUTH_MANAGEMENT_COMMAND: (envelope: unknown, ack?: Ack<ManagementReply>) => void;
  REMOTE_TICKET_REQUEST: (payload: unknown, ack?: Ack<RemoteTicketReply>) => void;
  KEY_PUBLISH: (payload: unknown, ack?: Ack<unknown>) => void;
  KEY_LOOKUP: (payload: unknown, ack?: Ack<unknown>) => void;
  PREKEY_PUBLISH: (payload: unknown, ack?: Ack<unknown>) => void;
  PREKEY_TAKE: (payload: unknown, ack?: Ack<unknown>) => void;
  SEALED_CERT_REQUEST: (payload: unknown, ack?: Ack<unknown>) => void;
  SEALED_UAK_SET: (payload: unknown, ack?: Ack<unknown>) => void;
  SEALED_DELIVER: (payload: unknown, ack?: Ack<unknown>) => void;
  SEALED_SUBSCRIBE: (payload: unknown, ack?: Ack<unknown>) => void;
  PUSH_REGISTER: (payload: unknown, ack?: Ack<unknown>) => void;
  PUSH_UNREGISTER: (payload: unknown, ack?: Ack<unknown>) => void;
}

/** Server → client event map (§4); composed names (`CONSUME-…`, `CONNECT-…`) use template keys. */
export interface ServerToClientEvents {
  CONSUME_CHUNK: (frame: ConsumeChunkFrame) => void;
  ACK_OK: (reply: AckReply) => void;
  ACK_FAIL: (reply: AckReply) => void;
  ERROR: (error: ProtocolError | string) => void;
  AUTH_OK: (payload: { realm: string; role: string }) => void;
  AUTH_FAIL: (payload: { code: number; message: string }) => void;
  RATE_LIMITED: (payload: { code: number; reason: string; retry_after: number }) => void;
  AUTHORIZATION_REQUEST_OK: (payload: unknown) => void;
  AUTHORIZATION_REQUEST_FAIL: (payload: AdminFailure) => void;
  AUTHORIZATION_NEXT_RESULT: (payload: unknown) => void;
  AUTHORIZATION_DECIDE_RESULT: (payload: unknown) => void;
  AUTHORIZATION_FAIL: (payload: AdminFailure) => void;
  AUTHORIZATION_APPROVED: (payload: { request_id: string; realm: string; role: string }) => void;
  AUTHORIZATION_REJECTED: (payload: { request_id: string; reason: string | null }) => void;
  AUTH_MANAGEMENT_RESULT: (reply: ManagementReply) => void;
  AUTH_MANAGEMENT_FAIL: (reply: ManagementReply) => void;
  REMOTE_TICKET: (reply: RemoteTicketReply) => void;
  REMOTE_TICKET_FAIL: (reply: RemoteTicketReply) => void;
  SEALED_MESSAGE: (payload: { blob: string; msg_id: string }) => void;
  [composed: `CONSUME-${string}`]: (envelope: DeliveryEnvelope) => void;
  [volatileExtra: `${string}-TM-ALL-CONSUME`]: (envelope: DeliveryEnvelope) => void;
  [notification: `SUBSCRIBE-TO-${string}`]: (payload: SubscribeToNotice) => void;
  [notification: `CONNECT-${string}`]: (payload: PeerNotice) => void;
  [notification: `DISCONNECT-${string}`]: (payload: PeerNotice) => void;
}

/** Payload of `SUBSCRIBE-TO-<producerId>` (§5.3, §5.4). */
export interface SubscribeToNotice {
  name: string;
  id: string;
  /** The consumer's socket id, or null while it is offline. */
  socket: string | null;
  events: string[];
  online: boolean;
}

/** Payload of `CONNECT-<id>` / `DISCONNECT-<id>` (§4). */
export interface PeerNotice {
  event: 'CONNECT' | 'DISCONNECT';
  socket: string;
  id?: string;
  consumer?: string;
  producer?: string;
}

/** Reply to `REMOTE_TICKET_REQUEST` (`spec/protocol-admin.md` §16.2); `expires_in` in seconds. */
export type RemoteTicketReply =
  | { ok: true; session_id: string; ticket: string; role: 'agent' | 'viewer'; expires_in: number }
  | { ok: false; code: number; message: string };

/** Events of the `/remote` namespace (§16.2): never relayed between peers. */
export const RemoteEvent = {
  AUTH: 'auth',
  AUTH_OK: 'auth_ok',
  AUTH_ERROR: 'auth_error',
} as const;

/** `auth_error` messages of `/remote` (§16.2), verbatim. */
export const RemoteErrorText = {
  INVALID_TICKET: 'Invalid or expired ticket',
  SESSION_MISMATCH: 'Ticket session mismatch',
  ROLE_MISMATCH: 'Ticket role mismatch',
} as const;

/** Name of the bundled namespace (§16.2). */
export const REMOTE_NAMESPACE = '/remote';
