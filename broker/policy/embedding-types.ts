/**
 * The embedding API's public shapes (issue 14, "Embedding API in the aedes style"; documented in
 * docs/embedding.md): clients as hooks and events see them, the packets of in-process
 * `publish`/`subscribe`, the policy hooks and the typed event map.
 *
 * One async style throughout: a hook may return its answer or a Promise of it (an `async`
 * function); throwing or rejecting refuses, with the protocol's error shape.
 */

/** The protocol a client speaks. */
export type ClientProtocol = 'socket.io' | 'mqtt';

/**
 * Where a message came from: a socket.io `PRODUCE`, an MQTT `PUBLISH`, `broker.publish`, or
 * another node of the cluster (docs/cluster.md).
 */
export type MessageOrigin = ClientProtocol | 'local' | 'cluster';

/** A connected client of either protocol, as hooks and events see it. */
export interface BrokerClient {
  /** socket.io: the socket id; MQTT: the client id the client chose (without realm scope). */
  readonly id: string;
  readonly protocol: ClientProtocol;
  /** The realm it was admitted into (`default` while auth is disabled). */
  readonly realm: string;
  /** Its role: `producer`, `consumer`, `both`, `manager` or `admin`. */
  readonly role: string;
  /** Remote address as the transport reports it ('' when unknown). */
  readonly address: string;
  /** Disconnects the client (a socket.io disconnect; an MQTT connection close). */
  close(): void;
}

/**
 * What a client presented when it authenticated. socket.io: the `AUTHENTICATION` payload's
 * `token` and `key` (none for a client admitted without one), plus the socket.io handshake
 * `auth` object; MQTT: the CONNECT `username` and `password` (the password as UTF-8 text is
 * also `token`).
 */
export interface ClientCredentials {
  token?: string;
  key?: string;
  username?: string;
  password?: Buffer;
  /** socket.io handshake `auth` (`io(url, {auth: {...}})`); `{}` when none. */
  handshake?: Record<string, unknown>;
}

/** A message as hooks, events and in-process subscribers see it. */
export interface BrokerMessage {
  realm: string;
  /** The topic (a tyo-mq event / an MQTT topic name), case as published. */
  topic: string;
  /**
   * The message as tyo-mq carries it (a JSON value, a string, or base64 text with
   * `enc: "base64"`; MQTT payloads mapped as docs/mqtt.md says) — except in the two hooks that
   * sit on MQTT packets: `authorizePublish` of an MQTT publisher and `authorizeForward` to an
   * MQTT recipient see (and may replace) the packet's bytes, a Buffer.
   */
  payload: unknown;
  /** Producer name (socket.io `from`), MQTT client id, or `switchboard` for `broker.publish`. */
  from: string;
  /**
   * Durable / guaranteed (socket.io `durable`…, MQTT QoS ≥ 1, `publish({durable})`); in
   * `authorizeForward` to a socket.io recipient: the copy is a stored one (it has a `msgId`).
   */
  durable: boolean;
  /** `enc` of the envelope, when set (e.g. `base64`). */
  enc?: unknown;
  /** Where it came from; absent in `authorizeForward` to a socket.io recipient (copies do not carry it). */
  origin?: MessageOrigin;
  /** Set for socket.io broadcasts (`method: "broadcast"`): `realm` or `group`. */
  broadcast?: 'realm' | 'group';
}

/** `broker.publish(packet)`: a message injected in-process. Only `topic` is required. */
export interface PublishPacket {
  topic: string;
  /** Any JSON value, a string or a Buffer (sent to MQTT as its bytes); default null. */
  payload?: unknown;
  /** Default `default`. */
  realm?: string;
  /** Producer name subscribers see (exact subscriptions to it work); default `switchboard`. */
  from?: string;
  /** Stored for offline durable subscribers before the promise resolves; default false. */
  durable?: boolean;
  /** Lifetime of stored copies: seconds, or a duration such as `"10m"`; default the store's. */
  ttl?: number | string;
}

/** The result of `broker.publish`: ids of the durable copies committed (empty when none). */
export interface PublishResult {
  msgIds: string[];
}

/** A subscription request as `authorizeSubscribe` sees it. */
export interface SubscriptionRequest {
  /** The filter / event (MQTT wildcards `+`, `#` in either protocol). */
  topic: string;
  /** MQTT: the requested QoS; socket.io: 1 for a durable or ACK subscription, else 0. */
  qos: number;
}

/** Options of the in-process `broker.subscribe`. */
export interface SubscribeOptions {
  /** Realm whose messages are received; default `default`. */
  realm?: string;
}

/** A handler of the in-process `broker.subscribe`; a rejection is logged, never fatal. */
export type MessageHandler = (message: BrokerMessage) => void | Promise<void>;

type MaybePromise<T> = T | Promise<T>;

/**
 * The policy hooks, for socket.io and MQTT clients alike. Each runs after Switchboard's own
 * checks (auth, realm, role) passed, so it can only narrow them.
 */
export interface BrokerHooks {
  /**
   * Called once per client when the broker admits it (MQTT CONNECT; socket.io `AUTHENTICATION`,
   * or the first event of a client that sends none). Resolve `false` or throw to refuse:
   * socket.io `AUTH_FAIL {code: 401, message}`; MQTT CONNACK 5 "not authorized", or the
   * thrown error's `returnCode` (1–5).
   */
  authenticate?: (
    client: BrokerClient,
    credentials: ClientCredentials,
  ) => MaybePromise<boolean | void>;
  /**
   * Called for every message a client publishes (socket.io `PRODUCE`, MQTT `PUBLISH` and
   * will), before it is routed; not for `broker.publish`. Throw to refuse (socket.io
   * `AUTH_FAIL {code: 403}` and the confirm callback `{ok: false, code: 403}`; MQTT 3.1.1 closes
   * the connection). Mutate `message.topic` / `message.payload` to rewrite it.
   */
  authorizePublish?: (client: BrokerClient, message: BrokerMessage) => MaybePromise<void>;
  /**
   * Called for every subscription a client asks for. Resolve the request (changed or not) to
   * grant it, `null` to negate it; throwing negates it too. Negated: socket.io
   * `AUTH_FAIL {code: 403}`; MQTT SUBACK return code 0x80.
   */
  authorizeSubscribe?: (
    client: BrokerClient,
    subscription: SubscriptionRequest,
  ) => MaybePromise<SubscriptionRequest | null>;
  /**
   * Synchronous, per recipient and copy: return the message (changed or not) to deliver it,
   * null to drop it for this recipient only. A throw drops it too (logged). A dropped copy of
   * an ACK subscription counts as unacknowledged (retried, then dead-lettered).
   */
  authorizeForward?: (client: BrokerClient, message: BrokerMessage) => BrokerMessage | null;
  /** Called after a message is routed; `client` is null for `broker.publish`. */
  published?: (message: BrokerMessage, client: BrokerClient | null) => MaybePromise<void>;
}

/** Names of the broker's events (the keys of `BrokerEvents`). */
export const BrokerEvent = {
  CLIENT: 'client',
  CLIENT_DISCONNECT: 'clientDisconnect',
  CLIENT_ERROR: 'clientError',
  PUBLISH: 'publish',
  ACK: 'ack',
  SUBSCRIBE: 'subscribe',
  UNSUBSCRIBE: 'unsubscribe',
  CLOSED: 'closed',
} as const;

/** What an `ack` event reports: the acknowledged copy. */
export interface AckInfo {
  realm: string;
  /** socket.io: the acknowledged `msgId`; MQTT: the packet id as text (may be empty). */
  msgId: string;
  /** The topic, when the acknowledged packet still carries it. */
  topic?: string;
}

/** The typed event map (Node's `EventEmitter<BrokerEvents>`). Listener errors are logged. */
export interface BrokerEvents {
  /** A client was admitted (after `authenticate`). */
  client: [client: BrokerClient];
  /** An admitted client disconnected. */
  clientDisconnect: [client: BrokerClient];
  /**
   * A hook threw or rejected for this client, `authenticate` refused it, a handler failed on
   * its request, or its transport reported an error. (A negated subscription is not one.)
   */
  clientError: [client: BrokerClient, error: Error];
  /** A message was routed; `client` null for `broker.publish`. */
  publish: [message: BrokerMessage, client: BrokerClient | null];
  /** A client acknowledged a delivered copy (socket.io `ACK`, MQTT PUBACK / PUBCOMP). */
  ack: [ack: AckInfo, client: BrokerClient];
  /** A client's subscriptions were granted. */
  subscribe: [subscriptions: SubscriptionRequest[], client: BrokerClient];
  /** A client removed subscriptions (socket.io keys / MQTT filters). */
  unsubscribe: [topics: string[], client: BrokerClient];
  /** The broker was closed. */
  closed: [];
}

export type BrokerEventName = keyof BrokerEvents;

/** The embedding part of the `createBroker` handle. */
export interface EmbeddingApi extends BrokerHooks {
  /**
   * Routes `packet` like a client's `PRODUCE`: socket.io subscribers, MQTT subscribers and
   * in-process subscribers of its realm get it once each. Resolves when every durable copy
   * is committed. @throws SwitchboardError `SWB_ERR_VALIDATION` for an empty topic, a bad
   * realm or ttl; `SWB_ERR_STORAGE` / `SWB_ERR_QUEUE_FULL` when a durable copy was not stored.
   */
  publish(packet: PublishPacket): Promise<PublishResult>;
  /**
   * Calls `handler` for every message routed in the realm whose topic matches `pattern`
   * (`+`, `#`; case-insensitive, as tyo-mq topic subscriptions), from socket.io producers, MQTT
   * publishers and `publish`. Broadcasts are not included.
   */
  subscribe(pattern: string, handler: MessageHandler, options?: SubscribeOptions): void;
  /** Removes a handler added with the same pattern (and realm). */
  unsubscribe(pattern: string, handler: MessageHandler, options?: SubscribeOptions): void;
  on<E extends BrokerEventName>(event: E, listener: (...args: BrokerEvents[E]) => void): this;
  once<E extends BrokerEventName>(event: E, listener: (...args: BrokerEvents[E]) => void): this;
  off<E extends BrokerEventName>(event: E, listener: (...args: BrokerEvents[E]) => void): this;
}
