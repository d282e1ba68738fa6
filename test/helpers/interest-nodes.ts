/**
 * Cluster nodes reduced to their routing state and interest table (issue 21), for tests of
 * `broker/cluster/interest-sync.ts`: a real `RealmDirectory`, a real `Router` over a recording
 * delivery (what routing would deliver, without sockets), real `RedisLinks` to the test's
 * redis-server and an `InterestSync`. Registry changes go through the registry's own methods
 * (`upsertSubscription`, `bindConsumer`, `setOffline`…), as the handlers make them.
 */
import pino from 'pino';
import { InterestSync } from '../../broker/cluster/interest-sync';
import { RedisLinks } from '../../broker/cluster/redis-links';
import type { Delivery } from '../../broker/delivery/delivery';
import type { ProducedMessage } from '../../broker/routing/produced-message';
import { RealmDirectory } from '../../broker/routing/realm-directory';
import { Router } from '../../broker/routing/router';
import { buildSubscription } from '../../broker/routing/subscription-options';
import type { SubscriptionRecord } from '../../broker/routing/registry-types';
import type { BrokerSocket } from '../../broker/transport/socket-types';

export const silent = pino({ level: 'silent' });

/** A Delivery that records what routing hands it instead of writing to sockets. */
export class RecordingDelivery {
  deliveries = 0;
  readonly forward = null;
  mayDeliverPlain(): boolean {
    return true;
  }
  emitToSockets(_realm: string, sockets: BrokerSocket[]): void {
    this.deliveries += sockets.length;
  }
  toSubscription(): null {
    this.deliveries += 1;
    return null;
  }
  emit(): void {
    this.deliveries += 1;
  }
  emitMany(): void {
    this.deliveries += 1;
  }
}

/** A connected socket as routing sees it (id, `connected`, volatile emit for broadcasts). */
export function fakeSocket(id: string): BrokerSocket {
  return { id, connected: true, volatile: { emit: () => true } } as unknown as BrokerSocket;
}

export interface SubscribeSpec {
  realm?: string;
  producer?: string;
  event: string;
  consumer?: string;
  topic?: boolean;
  group?: string;
  durable?: boolean;
}

export interface InterestNode {
  id: string;
  prefix: string;
  realms: RealmDirectory;
  router: Router;
  delivery: RecordingDelivery;
  links: RedisLinks;
  sync: InterestSync;
  /** Adds a subscription record as `SUBSCRIBE` does; returns it. */
  subscribe(spec: SubscribeSpec): SubscriptionRecord;
  unsubscribe(record: SubscriptionRecord, realm?: string): void;
  /** Binds `name` as a live consumer of `realm` (a connected socket). */
  online(name: string, realm?: string): void;
  /** Takes consumer `name` offline as a disconnect does (§15). */
  offline(name: string, realm?: string): void;
  /** Whether routing this (relayed) message here would deliver anything. */
  wouldDeliver(msg: ProducedMessage): Promise<boolean>;
  close(): Promise<void>;
}

export async function startInterestNode(
  url: string,
  prefix: string,
  id: string,
  options: { checkMs?: number; maxDeltaEntries?: number; start?: boolean } = {},
): Promise<InterestNode> {
  const realms = new RealmDirectory();
  const delivery = new RecordingDelivery();
  const router = new Router(realms, delivery as unknown as Delivery);
  let arbitrated = 0;
  // A relay with an arbiter, so that relayed messages reach groups as on a real cluster node.
  router.addRelay(
    () => undefined,
    () => true,
    () => {
      arbitrated += 1;
      return Promise.resolve(true);
    },
  );
  const links = new RedisLinks({ target: { kind: 'url', url }, connectTimeoutMs: 5_000 }, silent);
  const sync = new InterestSync({
    nodeId: id,
    prefix,
    links,
    realms,
    router,
    logger: silent,
    checkMs: options.checkMs ?? 200,
    maxDeltaEntries: options.maxDeltaEntries,
  });
  if (options.start !== false) sync.start();
  await links.connect();
  let sockets = 0;
  return {
    id,
    prefix,
    realms,
    router,
    delivery,
    links,
    sync,
    subscribe(spec) {
      const payload = {
        event: spec.event,
        producer: spec.producer ?? 'p',
        consumer: spec.consumer ?? 'c',
        ...(spec.topic ? { mode: 'topic' } : {}),
        ...(spec.group ? { group: spec.group } : {}),
        ...(spec.durable ? { durable: true } : {}),
      };
      const record = buildSubscription(payload as never, spec.event, undefined, undefined);
      realms.get(spec.realm ?? 'default', true).upsertSubscription(record);
      return record;
    },
    unsubscribe(record, realm = 'default') {
      realms.get(realm)?.removeSubscription(record.key, record.consumer);
    },
    online(name, realm = 'default') {
      realms.get(realm, true).bindConsumer(name, fakeSocket(`s${++sockets}`), name);
    },
    offline(name, realm = 'default') {
      const registry = realms.get(realm);
      const entry = registry?.consumers.get(name);
      if (!registry || !entry) return;
      registry.setOffline(entry);
      entry.socket = null;
      entry.offlineAt = Date.now();
    },
    async wouldDeliver(msg) {
      const before = delivery.deliveries + arbitrated;
      router.route({ ...msg, relayedFrom: 'origin', relaySeq: 1, groupsServed: [] });
      await Promise.resolve();
      return delivery.deliveries + arbitrated > before;
    },
    async close() {
      await sync.close();
      await links.close();
    },
  };
}

/** A plain message of `realm` from `from` with `event`. */
export function message(
  event: string,
  from = 'p',
  realm = 'default',
  extra: Partial<ProducedMessage> = {},
): ProducedMessage {
  return {
    realm,
    event,
    message: null,
    from,
    ttl: undefined,
    guaranteed: false,
    broadcast: null,
    group: null,
    ...extra,
  };
}

/**
 * Whether `a` has applied every write of `b` (so `targets` reflects `b`'s state). Hands `b`'s
 * pending changes to Redis first, and asks `a` about `b` so that `a` reads it if it never did.
 */
export function caughtUp(a: InterestNode, b: InterestNode): boolean {
  b.sync.flush();
  a.sync.targets(message('caught-up?'), [b.id]);
  return b.sync.revision > 0 && a.sync.peerRevision(b.id) === b.sync.revision;
}
