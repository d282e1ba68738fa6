/**
 * The embedding API's shared state (issue 14; docs/embedding.md): the policy hooks in force, the
 * typed event emitter, and the `BrokerClient` view of socket.io sockets and MQTT clients.
 *
 * Hooks are read at each use, so assigning one on the handle (aedes style) applies at once.
 * Event listeners and hooks that throw are logged (and reported as `clientError`), never fatal.
 */
import { EventEmitter } from 'node:events';
import type { Client as MqttClient } from 'aedes';
import type { DeliveryEnvelope } from '../../shared/protocol-events';
import type { SocketForward } from '../delivery/socket-forward';
import type { Logger } from '../logging/logger';
import type { ProducedMessage } from '../routing/produced-message';
import type { BrokerSocket } from '../transport/socket-types';
import {
  BrokerEvent,
  type BrokerClient,
  type BrokerEventName,
  type BrokerEvents,
  type BrokerHooks,
  type BrokerMessage,
} from './embedding-types';

/** The names of the hooks, for the handle's accessors. */
export const HOOK_NAMES = [
  'authenticate',
  'authorizePublish',
  'authorizeSubscribe',
  'authorizeForward',
  'published',
] as const satisfies readonly (keyof BrokerHooks)[];

/** A message's `BrokerMessage` view (a fresh object: hooks may change it). */
export function toBrokerMessage(msg: ProducedMessage): BrokerMessage {
  const message: BrokerMessage = {
    realm: msg.realm,
    topic: msg.event,
    payload: msg.message,
    from: msg.from,
    durable: msg.guaranteed,
    origin: msg.origin ?? 'mqtt',
  };
  if (msg.enc !== undefined) message.enc = msg.enc;
  if (msg.broadcast !== null) message.broadcast = msg.broadcast;
  return message;
}

/** The error message of a connection the `authenticate` hook refused (both transports). */
export const AUTH_REFUSED = 'Authentication refused';

/** Who an MQTT client is, as far as its `BrokerClient` view needs (`MqttIdentity` has more). */
export interface MqttClientIdentity {
  realm: string;
  role: string;
  /** The id the client chose (without the realm scope). */
  clientId: string;
}

/**
 * The MQTT side's auth mapping (`EmbeddedMqttAuth`, mqtt/mqtt-hooks.ts), named by its shape:
 * policy/ sits below mqtt/ and imports nothing of it.
 */
export interface MqttSide {
  /** The identity of an admitted client; undefined when not admitted (or no client). */
  admitted(client: MqttClient | null): MqttClientIdentity | undefined;
}

/** Turns whatever a hook threw (or rejected with) into an Error. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

export class Embedding {
  private readonly current: BrokerHooks = {};
  private readonly emitter = new EventEmitter<BrokerEvents>();
  private readonly sockets = new WeakMap<BrokerSocket, BrokerClient>();
  private readonly mqtt = new WeakMap<MqttClient, BrokerClient>();
  /** Called with the socket.io forward filter whenever `authorizeForward` changes. */
  private readonly forwardTargets: ((filter: SocketForward | null) => void)[] = [];
  private mqttAuth: MqttSide | null = null;

  constructor(
    readonly logger: Logger,
    hooks: BrokerHooks = {},
  ) {
    for (const name of HOOK_NAMES) if (hooks[name]) this.setHook(name, hooks[name]);
  }

  /** The hooks in force (read them at each use). */
  get hooks(): Readonly<BrokerHooks> {
    return this.current;
  }

  setHook<K extends keyof BrokerHooks>(name: K, hook: BrokerHooks[K] | undefined | null): void {
    if (hook !== undefined && hook !== null && typeof hook !== 'function') {
      throw new TypeError(`${name} must be a function`);
    }
    if (hook) this.current[name] = hook;
    else delete this.current[name];
    if (name === 'authorizeForward') {
      const filter = hook ? this.forwardToSocket : null;
      for (const target of this.forwardTargets) target(filter);
    }
  }

  /** Registers a holder of the socket.io forward filter (Delivery, AckTracker). */
  onForward(target: (filter: SocketForward | null) => void): void {
    this.forwardTargets.push(target);
    target(this.current.authorizeForward ? this.forwardToSocket : null);
  }

  get events(): EventEmitter<BrokerEvents> {
    return this.emitter;
  }

  /** Whether routed messages are observed (a `published` hook or `publish` listeners). */
  get observesPublish(): boolean {
    return (
      this.current.published !== undefined || this.emitter.listenerCount(BrokerEvent.PUBLISH) > 0
    );
  }

  /** Emits `event`; a listener that throws is logged, never propagated. */
  /** Whether `event` has a listener: hot paths check it before building the event's arguments. */
  wants(event: BrokerEventName): boolean {
    return this.emitter.listenerCount(event) > 0;
  }

  emit<E extends BrokerEventName>(event: E, ...args: BrokerEvents[E]): void {
    if (!this.wants(event)) return;
    try {
      (this.emitter.emit as (e: E, ...a: BrokerEvents[E]) => boolean)(event, ...args);
    } catch (err) {
      this.logger.error({ err, event }, 'broker event listener failed');
    }
  }

  /** A hook of `client` failed: logged and reported as `clientError`. */
  hookFailed(client: BrokerClient | null, hook: keyof BrokerHooks, err: unknown): Error {
    const error = asError(err);
    this.logger.warn({ hook, client: client?.id, err: error.message }, 'hook refused or failed');
    if (client) this.emit(BrokerEvent.CLIENT_ERROR, client, error);
    return error;
  }

  /** The `BrokerClient` of a socket.io socket (one object per socket). */
  socketClient(socket: BrokerSocket): BrokerClient {
    let client = this.sockets.get(socket);
    if (!client) {
      client = {
        id: socket.id,
        protocol: 'socket.io',
        get realm() {
          return socket.data.realm;
        },
        get role() {
          return socket.data.role;
        },
        address: socket.handshake.address ?? '',
        close: () => void socket.disconnect(true),
      };
      this.sockets.set(socket, client);
    }
    return client;
  }

  /** The MQTT side's auth mapping (set by createMqttListener); returns it. */
  useMqtt<A extends MqttSide>(mqttAuth: A): A {
    this.mqttAuth = mqttAuth;
    return mqttAuth;
  }

  /** The MQTT auth mapping registered with `useMqtt`, if any. */
  get mqttSide(): MqttSide | null {
    return this.mqttAuth;
  }

  /** A socket was admitted: `client` now, `clientDisconnect` when it goes. */
  socketAdmitted(socket: BrokerSocket): void {
    const client = this.socketClient(socket);
    socket.once('disconnect', () => this.emit(BrokerEvent.CLIENT_DISCONNECT, client));
    socket.on('error', (err: Error) => this.emit(BrokerEvent.CLIENT_ERROR, client, err));
    this.emit(BrokerEvent.CLIENT, client);
  }

  /** The `BrokerClient` of an authenticated MQTT client (one object per connection). */
  mqttClient(client: MqttClient, identity: MqttClientIdentity): BrokerClient {
    let view = this.mqtt.get(client);
    if (!view) {
      const conn = client.conn as { remoteAddress?: string };
      view = {
        id: identity.clientId,
        protocol: 'mqtt',
        realm: identity.realm,
        role: identity.role,
        address: conn.remoteAddress ?? '',
        close: () => client.close(),
      };
      this.mqtt.set(client, view);
    }
    return view;
  }

  /**
   * After a message was routed: the `publish` event, then the `published` hook (whose
   * failure is logged: the message is already on its way).
   */
  routed(msg: ProducedMessage, client: BrokerClient | null): void {
    if (!this.observesPublish) return;
    const message = toBrokerMessage(msg);
    this.emit(BrokerEvent.PUBLISH, message, client);
    const hook = this.current.published;
    if (!hook) return;
    try {
      const done = hook(message, client);
      if (done instanceof Promise) done.catch((err) => this.hookFailed(client, 'published', err));
    } catch (err) {
      this.hookFailed(client, 'published', err);
    }
  }

  /** The socket.io side of `authorizeForward` (see `SocketForward`). */
  private readonly forwardToSocket: SocketForward = (realm, socket, envelope) => {
    const hook = this.current.authorizeForward;
    if (!hook) return envelope;
    const client = this.socketClient(socket);
    const message: BrokerMessage = {
      realm,
      topic: envelope.event,
      payload: envelope.message,
      from: envelope.from,
      durable: (envelope as { msgId?: unknown }).msgId !== undefined,
    };
    if (envelope.enc !== undefined) message.enc = envelope.enc;
    let result: BrokerMessage | null;
    try {
      result = hook(client, message);
    } catch (err) {
      this.hookFailed(client, 'authorizeForward', err);
      return null;
    }
    if (!result) return null;
    if (result.topic === envelope.event && result.payload === envelope.message) return envelope;
    const rewritten: DeliveryEnvelope = {
      ...envelope,
      event: result.topic,
      message: result.payload,
    };
    return rewritten;
  };
}
