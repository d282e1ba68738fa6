/**
 * In-process `publish` and `subscribe` of the embedding API (issue 14; docs/embedding.md), the
 * counterparts of aedes' `instance.publish` / `instance.subscribe`.
 *
 * `publish` routes a message exactly as a socket.io `PRODUCE` is routed (`spec/protocol-core.md`
 * §7): tyo-mq subscribers get it from the Router, MQTT subscribers from the MQTT bridge's tap,
 * in-process subscribers from this module's tap — each once. `subscribe` observes every routed,
 * non-broadcast message of a realm (socket.io producers, MQTT publishers, `publish`) whose topic
 * matches an MQTT-style pattern, with the matching rules of tyo-mq topic subscriptions (§11:
 * `+`, `#`, case-insensitive, wildcards never match a leading `$`). A realm of `*` sees every
 * realm, as the admin realm's subscriptions do.
 */
import { parseTtlSeconds } from '../../shared/duration';
import { SwitchboardError } from '../../shared/error-catalogue';
import { Protocol } from '../../shared/protocol-events';
import { e2eeRequiredText } from '../../shared/protocol-extensions';
import { RealmName } from '../auth/auth-schema';
import type { AuthState } from '../auth/auth-state';
import { cleartextRefused } from '../auth/e2ee-policy';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { ProducedMessage } from '../routing/produced-message';
import type { Router } from '../routing/router';
import { TopicTrie } from '../routing/topic-trie';
import { toBrokerMessage, type Embedding } from '../policy/embedding';
import type {
  MessageHandler,
  PublishPacket,
  PublishResult,
  SubscribeOptions,
} from '../policy/embedding-types';

/** Producer name of messages published in-process without `from`. */
export const LOCAL_PRODUCER = 'switchboard';

interface RealmSubscriptions {
  trie: TopicTrie;
  /** Lowercased pattern → its handlers, in subscription order. */
  handlers: Map<string, Set<MessageHandler>>;
}

function validRealm(realm: unknown): realm is string {
  return realm === Protocol.ADMIN_REALM || RealmName.safeParse(realm).success;
}

export class InProcessPubSub {
  private readonly realms = new Map<string, RealmSubscriptions>();
  private readonly removeTap: () => void;

  constructor(
    private readonly router: Router,
    private readonly embedding: Embedding,
    private readonly metrics: BrokerMetrics,
    private readonly logger: Logger,
    private readonly auth: AuthState,
  ) {
    this.removeTap = router.addTap(this.tap, this.interested, () => this.realms.keys());
  }

  /** See `EmbeddingApi.publish`. */
  async publish(packet: PublishPacket): Promise<PublishResult> {
    if (typeof packet !== 'object' || packet === null) {
      throw new SwitchboardError('SWB_ERR_VALIDATION', 'publish needs a packet object');
    }
    const { topic } = packet;
    if (typeof topic !== 'string' || topic.length === 0) {
      throw new SwitchboardError('SWB_ERR_VALIDATION', 'publish needs a non-empty topic');
    }
    const realm = packet.realm ?? Protocol.DEFAULT_REALM;
    if (!validRealm(realm)) {
      throw new SwitchboardError('SWB_ERR_VALIDATION', `Invalid realm name: ${String(realm)}`);
    }
    const ttl = parseTtlSeconds(packet.ttl);
    if (packet.ttl !== undefined && ttl === undefined) {
      throw new SwitchboardError('SWB_ERR_VALIDATION', `Invalid ttl: ${String(packet.ttl)}`);
    }
    // §2.6 (Switchboard decision): server code publishing into a `required` realm sends the
    // encrypted message shape as the payload, as an MQTT device does (docs/embedding.md).
    if (cleartextRefused(this.auth, realm, packet.payload)) {
      throw new SwitchboardError('SWB_ERR_E2EE_REQUIRED', e2eeRequiredText(realm));
    }
    const msg: ProducedMessage = {
      realm,
      event: topic,
      message: packet.payload ?? null,
      from: packet.from ?? LOCAL_PRODUCER,
      ttl,
      guaranteed: packet.durable === true,
      broadcast: null,
      group: null,
      origin: 'local',
      receivedAt: performance.now(),
    };
    this.metrics.messageProduced(realm, topic);
    const stored = this.router.route(msg);
    this.embedding.routed(msg, null);
    const msgIds: string[] = [];
    for (const outcome of await Promise.all(stored)) {
      if (!outcome.ok) throw new SwitchboardError(outcome.error.code, outcome.error.message);
      msgIds.push(outcome.msgId);
    }
    return { msgIds };
  }

  /** See `EmbeddingApi.subscribe`. @throws TypeError for an empty pattern or a non-function. */
  subscribe(pattern: string, handler: MessageHandler, options: SubscribeOptions = {}): void {
    const realm = this.checked(pattern, handler, options);
    let subs = this.realms.get(realm);
    if (!subs) {
      subs = { trie: new TopicTrie(), handlers: new Map() };
      this.realms.set(realm, subs);
      this.router.tapInterestChanged();
    }
    const key = pattern.toLowerCase();
    let handlers = subs.handlers.get(key);
    if (!handlers) {
      handlers = new Set();
      subs.handlers.set(key, handlers);
      subs.trie.add(key, key);
    }
    handlers.add(handler);
  }

  /** See `EmbeddingApi.unsubscribe`. Unknown pairs are ignored. */
  unsubscribe(pattern: string, handler: MessageHandler, options: SubscribeOptions = {}): void {
    const realm = this.checked(pattern, handler, options);
    const subs = this.realms.get(realm);
    const key = pattern.toLowerCase();
    const handlers = subs?.handlers.get(key);
    if (!subs || !handlers?.delete(handler) || handlers.size > 0) return;
    subs.handlers.delete(key);
    subs.trie.remove(key, key);
    if (subs.handlers.size === 0) {
      this.realms.delete(realm);
      this.router.tapInterestChanged();
    }
  }

  close(): void {
    this.realms.clear();
    this.removeTap();
  }

  private checked(pattern: string, handler: MessageHandler, options: SubscribeOptions): string {
    if (typeof pattern !== 'string' || pattern.length === 0) {
      throw new TypeError('subscribe needs a non-empty pattern');
    }
    if (typeof handler !== 'function') throw new TypeError('subscribe needs a handler function');
    const realm = options.realm ?? Protocol.DEFAULT_REALM;
    if (!validRealm(realm)) throw new TypeError(`Invalid realm name: ${String(realm)}`);
    return realm;
  }

  private readonly interested = (realm: string): boolean =>
    this.realms.has(realm) || this.realms.has(Protocol.ADMIN_REALM);

  /** Router tap: runs the matching handlers after the current routing step (in order). */
  private readonly tap = (msg: ProducedMessage): void => {
    if (msg.broadcast !== null || this.realms.size === 0) return;
    const matched: MessageHandler[] = [];
    this.collect(this.realms.get(msg.realm), msg.event, matched);
    if (msg.realm !== Protocol.ADMIN_REALM) {
      this.collect(this.realms.get(Protocol.ADMIN_REALM), msg.event, matched);
    }
    if (matched.length === 0) return;
    queueMicrotask(() => {
      for (const handler of matched) this.call(handler, msg);
    });
  };

  private collect(subs: RealmSubscriptions | undefined, topic: string, out: MessageHandler[]) {
    if (!subs) return;
    for (const key of subs.trie.match(topic)) {
      for (const handler of subs.handlers.get(key) ?? []) out.push(handler);
    }
  }

  private call(handler: MessageHandler, msg: ProducedMessage): void {
    const fail = (err: unknown) =>
      this.logger.error({ err, realm: msg.realm, topic: msg.event }, 'subscriber failed');
    try {
      const done = handler(toBrokerMessage(msg));
      if (done instanceof Promise) done.catch(fail);
    } catch (err) {
      fail(err);
    }
  }
}
