/**
 * The embedding API on the MQTT side (docs/embedding.md): the policy hooks run inside aedes'
 * own hooks, after Switchboard's MQTT auth mapping (mqtt-auth.ts) passed, and aedes' events are
 * re-emitted as the broker's typed events with client-visible names (realm prefix removed).
 *
 * Refusals use MQTT's codes: `authenticate` → CONNACK 5 "not authorized" (or the thrown error's
 * `returnCode`, 2–5); `authorizeSubscribe` → SUBACK 0x80 for that filter; `authorizePublish` →
 * the connection is closed (MQTT 3.1.1 has no negative PUBACK).
 */
import type { Aedes, AedesPublishPacket, AuthenticateError, Client, Subscription } from 'aedes';
import type { AuthState } from '../auth/auth-state';
import type { TokenValidator } from '../auth/token-validator';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import { MqttAuth } from './mqtt-auth';
import type { MqttIdentity } from './mqtt-identity';
import { MqttBridge } from './mqtt-bridge';
import { fromMqttPayload, toMqttPayload } from './payload-mapping';
import { scopeTopic, unscopeTopic } from './realm-topics';
import type { ProducedMessage } from '../routing/produced-message';
import type { Router } from '../routing/router';
import { AUTH_REFUSED, type Embedding, type MqttSide } from '../policy/embedding';
import { BrokerEvent, type BrokerMessage } from '../policy/embedding-types';

const NOT_AUTHORIZED = 5;

/** Bytes of a payload a hook set: a Buffer as is, anything else mapped like a tyo-mq message. */
const asBytes = (payload: unknown): Buffer =>
  Buffer.isBuffer(payload) ? payload : toMqttPayload(payload);

/** A topic a client may publish to: not empty, no wildcards, not `$`. */
const publishable = (topic: unknown): topic is string =>
  typeof topic === 'string' &&
  topic.length > 0 &&
  !topic.startsWith('$') &&
  !topic.includes('+') &&
  !topic.includes('#');

/** Client-visible form of an internal topic of `realm` (unchanged when not scoped to it). */
function visible(topic: string, realm: string): string {
  const scoped = unscopeTopic(topic);
  return scoped && scoped.realm === realm ? scoped.topic : topic;
}

function ownHooks(auth: MqttAuth) {
  const { authenticate, authorizePublish, authorizeSubscribe, authorizeForward } = auth;
  return { authenticate, authorizePublish, authorizeSubscribe, authorizeForward };
}

/** `MqttAuth` with the embedding hooks run after its own checks. */
export class EmbeddedMqttAuth extends MqttAuth {
  private embed!: Embedding;
  /** Clients refused by the `authenticate` hook (already reported as `clientError`). */
  readonly refused = new WeakSet<Client>();
  /** MqttAuth's own hooks (captured before the overrides below replace them). */
  private readonly base = ownHooks(this);

  static create(
    auth: AuthState,
    tokens: TokenValidator,
    logger: Logger,
    embed: Embedding,
  ): EmbeddedMqttAuth {
    const mqttAuth = new EmbeddedMqttAuth(auth, tokens, logger);
    mqttAuth.embed = embed;
    return mqttAuth;
  }

  override readonly authenticate: MqttAuth['authenticate'] = (client, username, pw, done) => {
    this.base.authenticate(client, username, pw, (error, success) => {
      const hook = this.embed.hooks.authenticate;
      const identity = this.identity(client);
      if (error || !success || !hook || !identity) return done(error, success);
      const view = this.embed.mqttClient(client, identity);
      const credentials = { username, password: pw, token: pw?.toString('utf8') };
      Promise.resolve()
        .then(() => hook(view, credentials))
        .then((ok) => {
          if (ok === false) throw new Error(AUTH_REFUSED);
          done(null, true);
        })
        .catch((err: unknown) => {
          this.refused.add(client);
          const e = this.embed.hookFailed(view, 'authenticate', err);
          const code = (err as { returnCode?: unknown }).returnCode;
          const returnCode =
            typeof code === 'number' && code >= 2 && code <= 5 ? code : NOT_AUTHORIZED;
          done(Object.assign(new Error(e.message), { returnCode }) as AuthenticateError, false);
        });
    });
  };

  override readonly authorizePublish: MqttAuth['authorizePublish'] = (client, packet, callback) => {
    this.base.authorizePublish(client, packet, (err) => {
      const hook = this.embed.hooks.authorizePublish;
      const identity = this.identity(client);
      const scoped = unscopeTopic(packet.topic);
      // A will restored without its client has no client to show the hook.
      if (err || !hook || !client || !identity || !scoped) return callback(err);
      const view = this.embed.mqttClient(client, identity);
      const message: BrokerMessage = {
        realm: scoped.realm,
        topic: scoped.topic,
        payload: packet.payload,
        from: identity.clientId,
        durable: packet.qos > 0,
        origin: 'mqtt',
      };
      Promise.resolve()
        .then(() => hook(view, message))
        .then(() => {
          if (message.topic !== scoped.topic) {
            if (!publishable(message.topic)) throw new Error('authorizePublish set a bad topic');
            packet.topic = scopeTopic(scoped.realm, message.topic);
          }
          if (message.payload !== packet.payload) packet.payload = asBytes(message.payload);
          callback(null);
        })
        .catch((e: unknown) => callback(this.embed.hookFailed(view, 'authorizePublish', e)));
    });
  };

  override readonly authorizeSubscribe: MqttAuth['authorizeSubscribe'] = (client, sub, done) => {
    this.base.authorizeSubscribe(client, sub, (err, granted) => {
      const hook = this.embed.hooks.authorizeSubscribe;
      const identity = this.identity(client);
      if (err || !granted || !hook || !identity) return done(err, granted);
      const view = this.embed.mqttClient(client, identity);
      const realm = identity.realm;
      const request = { topic: visible(granted.topic, realm), qos: granted.qos };
      Promise.resolve()
        .then(() => hook(view, request))
        .then((result) => {
          if (!result) return done(null, null);
          // In place, as aedes' own example does: it persists the packet's subscription objects.
          if (result.topic !== request.topic) granted.topic = scopeTopic(realm, result.topic);
          const qos = Math.min(2, Math.max(0, Math.trunc(result.qos)));
          if (!Number.isNaN(qos)) granted.qos = qos as Subscription['qos'];
          done(null, granted);
        })
        .catch((e: unknown) => {
          // A thrown error negates the filter (0x80) rather than closing the connection.
          this.embed.hookFailed(view, 'authorizeSubscribe', e);
          done(null, null);
        });
    });
  };

  override readonly authorizeForward = <P extends { topic: string }>(
    client: Client,
    packet: P,
  ): P | null => {
    const out = this.base.authorizeForward(client, packet);
    const hook = this.embed.hooks.authorizeForward;
    if (out === null || !hook) return out;
    const identity = this.identity(client);
    if (!identity) return out;
    const view = this.embed.mqttClient(client, identity);
    const p = out as unknown as { topic: string; payload: Buffer | string; qos?: number };
    const message: BrokerMessage = {
      realm: identity.realm,
      topic: p.topic,
      payload: p.payload,
      from: '',
      durable: (p.qos ?? 0) > 0,
    };
    let result: BrokerMessage | null;
    try {
      result = hook(view, message);
    } catch (err) {
      this.embed.hookFailed(view, 'authorizeForward', err);
      return null;
    }
    if (!result) return null;
    // In place: aedes hands each recipient its own copy (see MqttAuth.authorizeForward).
    if (result.topic !== p.topic && publishable(result.topic)) p.topic = result.topic;
    if (result.payload !== p.payload) p.payload = asBytes(result.payload);
    return out;
  };

  /** The identity of a client admitted by both Switchboard and the hook. */
  admitted(client: Client | null): MqttIdentity | undefined {
    return client && !this.refused.has(client) ? this.identity(client) : undefined;
  }
}

/** `MqttBridge` that reports MQTT publishes as routed (`publish` event, `published` hook). */
export class EmbeddedMqttBridge extends MqttBridge {
  /** MqttBridge's own hook (captured before the override below replaces it). */
  private readonly basePublished = ((bridge: MqttBridge) => bridge.published)(this);
  private embed!: Embedding;
  private mqttAuth!: MqttAuth;

  static create(
    mqttAuth: MqttAuth,
    router: Router,
    metrics: BrokerMetrics,
    logger: Logger,
    embed: Embedding,
  ): EmbeddedMqttBridge {
    const bridge = new EmbeddedMqttBridge(mqttAuth, router, metrics, logger);
    bridge.embed = embed;
    bridge.mqttAuth = mqttAuth;
    return bridge;
  }

  override readonly published = (
    packet: AedesPublishPacket,
    client: Client | null,
    callback: (error?: Error | null) => void,
  ): void => {
    this.basePublished(packet, client, (error) => {
      // Per message: nothing is looked up unless someone observes publishes.
      const identity = this.embed.observesPublish ? this.mqttAuth.identity(client) : undefined;
      const scoped = identity ? unscopeTopic(packet.topic) : null;
      if (client && identity && scoped) {
        if (!(packet.retain && packet.payload.length === 0)) {
          const { message, enc } = fromMqttPayload(packet.payload);
          const msg: ProducedMessage = {
            realm: scoped.realm,
            event: scoped.topic,
            message,
            from: identity.clientId,
            ttl: undefined,
            guaranteed: packet.qos > 0,
            broadcast: null,
            group: null,
            origin: 'mqtt',
          };
          if (enc !== undefined) msg.enc = enc;
          this.embed.routed(msg, this.embed.mqttClient(client, identity));
        }
      }
      callback(error);
    });
  };
}

/** Re-emits aedes' client events as the broker's typed events; returns the detach. */
export function forwardAedesEvents(aedes: Aedes, mqttAuth: MqttSide, embed: Embedding) {
  const view = (client: Client | null) => {
    const identity = mqttAuth.admitted(client);
    return client && identity ? { client: embed.mqttClient(client, identity), identity } : null;
  };
  const listeners = {
    client: (client: Client) => {
      const v = view(client);
      if (v) embed.emit(BrokerEvent.CLIENT, v.client);
    },
    clientDisconnect: (client: Client) => {
      const v = view(client);
      if (v) embed.emit(BrokerEvent.CLIENT_DISCONNECT, v.client);
    },
    clientError: (client: Client, err: Error) => {
      const v = view(client);
      if (v) embed.emit(BrokerEvent.CLIENT_ERROR, v.client, err);
    },
    ack: (packet: { topic?: string; messageId?: number } | undefined, client: Client) => {
      const v = view(client);
      if (!v) return;
      const info = { realm: v.identity.realm, msgId: String(packet?.messageId ?? '') };
      embed.emit(
        BrokerEvent.ACK,
        packet?.topic ? { ...info, topic: visible(packet.topic, v.identity.realm) } : info,
        v.client,
      );
    },
    subscribe: (subs: Subscription[], client: Client) => {
      const v = view(client);
      if (!v) return;
      const list = subs.map((s) => ({ topic: visible(s.topic, v.identity.realm), qos: s.qos }));
      embed.emit(BrokerEvent.SUBSCRIBE, list, v.client);
    },
    unsubscribe: (topics: string[], client: Client) => {
      const v = view(client);
      if (v)
        embed.emit(
          BrokerEvent.UNSUBSCRIBE,
          topics.map((t) => visible(t, v.identity.realm)),
          v.client,
        );
    },
  };
  // Never let a mapping bug escape into aedes' emit (it would end the client or the process).
  const guarded = Object.entries(listeners).map(([event, listener]) => {
    const safe = (...args: unknown[]) => {
      try {
        (listener as (...a: unknown[]) => void)(...args);
      } catch (err) {
        embed.logger.error({ err, event }, 'MQTT event not re-emitted');
      }
    };
    aedes.on(event as 'client', safe);
    return [event, safe] as const;
  });
  return () => {
    for (const [event, safe] of guarded) aedes.off(event, safe);
  };
}
