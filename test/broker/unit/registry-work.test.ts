/**
 * The registry's cost and footprint (issue 8 items 8 and 10), counted, not timed:
 * - the idle sweep costs what it evicts (indexed), not one scan of every key and producer per
 *   stale consumer (which stalled the loop for 17–55 s at 40k offline consumers), and the
 *   timer-driven sweep examines a bounded number of entries per event-loop turn;
 * - group counters and placeholder producers go away with the last subscription naming them.
 */
import { describe, expect, it } from 'vitest';
import { IdleSweeper } from '../../../broker/routing/idle-eviction';
import { RealmDirectory } from '../../../broker/routing/realm-directory';
import type { RealmRegistry } from '../../../broker/routing/realm-registry';
import type { SubscriptionRecord } from '../../../broker/routing/registry-types';
import { Protocol, subscriptionKey } from '../../../shared/protocol-events';

const TTL = 1_000;
const NOW = 1_000_000;

function record(
  consumer: string,
  producer: string,
  event: string,
  extra: Partial<SubscriptionRecord> = {},
): SubscriptionRecord {
  return {
    key: subscriptionKey(producer, event),
    consumer,
    producer,
    pattern: null,
    consumerId: consumer,
    durable: false,
    ackRequired: false,
    ackTimeoutMs: 30_000,
    retry: { maxAttempts: 3, delayMs: 5_000, backoff: 'fixed' },
    group: null,
    mode: null,
    announced: false,
    ...extra,
  };
}

/** `n` consumers and `n` producers, all offline past the TTL; consumer i subscribes to producer i and to every producer via TYO-MQ-ALL links on the first 10. */
function offlineRealm(n: number): { realms: RealmDirectory; realm: RealmRegistry } {
  const realms = new RealmDirectory();
  const realm = realms.get('default', true);
  for (let i = 0; i < n; i++) {
    const producer = realm.producer(`p${i}`, true)!;
    producer.placeholder = false;
    producer.offlineAt = NOW - 2 * TTL;
  }
  for (let i = 0; i < n; i++) {
    const consumer = realm.restoreConsumer(`c${i}`, `c${i}`);
    consumer.offlineAt = NOW - 2 * TTL;
    realm.upsertSubscription(record(`c${i}`, `p${i}`, 'job'));
    realm.linkSubscriber(realm.producers.get(`p${i}`)!, `c${i}`);
  }
  return { realms, realm };
}

describe('idle sweep work (issue 8 item 8)', () => {
  it('evicts n offline consumers and producers with work proportional to n, not n²', () => {
    const n = 5_000;
    const { realms, realm } = offlineRealm(n);
    const sweeper = new IdleSweeper(realms, TTL);
    expect(sweeper.sweepAll(NOW)).toBe(2 * n);
    expect(realm.consumers.size + realm.producers.size + realm.subscriptions.size).toBe(0);
    expect(sweeper.work.examined).toBe(2 * n);
    // One record and one link per consumer; a linear bound with room, far below n² (25M).
    expect(sweeper.work.visited).toBeLessThanOrEqual(4 * n);
    expect(Object.values(realm.indexSizes()).every((size) => size === 0)).toBe(true);
  });

  it('examines at most the slice budget per step and finishes the pass across steps', () => {
    const n = 1_000;
    const { realms } = offlineRealm(n);
    const sweeper = new IdleSweeper(realms, TTL, 300);
    let steps = 0;
    let evicted: number | null = null;
    while (evicted === null) {
      const before = sweeper.work.examined;
      evicted = sweeper.step(NOW);
      expect(sweeper.work.examined - before).toBeLessThanOrEqual(300);
      steps++;
    }
    expect(evicted).toBe(2 * n);
    expect(steps).toBe(Math.ceil((2 * n) / 300));
    expect(sweeper.running).toBe(false);
  });

  it('keeps a durable subscription and its consumer, and subscriptions of online consumers of an evicted producer', () => {
    const { realms, realm } = offlineRealm(2);
    realm.upsertSubscription(record('c0', 'p0', 'audit', { durable: true }));
    const live = realm.restoreConsumer('live', 'live');
    live.online = true;
    live.offlineAt = null;
    realm.upsertSubscription(record('live', 'p1', 'job'));
    new IdleSweeper(realms, TTL).sweepAll(NOW);
    expect([...realm.consumers.keys()].sort()).toEqual(['c0', 'live']);
    expect(realm.subscriptionsOf('c0').map((r) => r.key)).toEqual([subscriptionKey('p0', 'audit')]);
    expect(realm.subscriptionsOf('live')).toHaveLength(1);
    expect(realm.producers.size).toBe(0);
  });
});

describe('maps keyed by client names are bounded by live references (issue 8 item 10)', () => {
  it('drops group counters and placeholder producers with their last subscription', () => {
    const realms = new RealmDirectory();
    const realm = realms.get('default', true);
    for (let i = 0; i < 2_000; i++) {
      const r = record(`c${i}`, `fresh-producer-${i}`, `e${i}`, { group: `g${i}` });
      realm.upsertSubscription(r);
      realm.producer(r.producer, true);
      realm.nextGroupCount(`g${i}`);
      realm.removeSubscription(r.key, r.consumer);
    }
    expect(realm.producers.size).toBe(0);
    expect(realm.subscriptions.size).toBe(0);
    expect(realm.indexSizes()).toEqual({
      groupCounters: 0,
      groupRefs: 0,
      keysOfConsumer: 0,
      keysOfProducer: 0,
      linkedProducers: 0,
      topicKeys: 0,
    });
  });

  it('keeps a group counter while any member remains, and a placeholder while any record names it', () => {
    const realm = new RealmDirectory().get('default', true);
    const a = record('a', 'fleet', 'job', { group: 'g' });
    const b = record('b', 'fleet', 'job', { group: 'g' });
    realm.upsertSubscription(a);
    realm.upsertSubscription(b);
    realm.producer('fleet', true);
    expect([realm.nextGroupCount('g'), realm.nextGroupCount('g')]).toEqual([1, 2]);
    realm.removeSubscription(a.key, 'a');
    expect(realm.nextGroupCount('g')).toBe(3);
    expect(realm.producers.has('fleet')).toBe(true);
    realm.removeSubscription(b.key, 'b');
    expect(realm.producers.has('fleet')).toBe(false);
    expect(realm.indexSizes().groupCounters).toBe(0);
    // Any-producer subscriptions never create a placeholder to begin with.
    realm.upsertSubscription(record('c', Protocol.ALL_PUBLISHERS, 'x'));
    expect(realm.producers.size).toBe(0);
  });
});
