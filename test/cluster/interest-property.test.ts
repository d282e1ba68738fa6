/**
 * Interest routing is never less permissive than local routing (issue 21): for random
 * subscription sets and live names on node b and random messages, whenever b's real Router
 * would deliver the message (routed in relay mode, as a message from a peer), a's `targets`
 * names b. Also checks that the published interest is what b's state implies after the
 * random changes (the hooks missed nothing), and reports how selective the targeting is.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProducedMessage } from '../../broker/routing/produced-message';
import { freshPrefix } from '../helpers/cluster-nodes';
import {
  caughtUp,
  message,
  startInterestNode,
  type InterestNode,
  type SubscribeSpec,
} from '../helpers/interest-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil } from '../helpers/wait';

let redis: RedisServer;
let a: InterestNode;
let b: InterestNode;

beforeAll(async () => {
  redis = await startRedisServer();
  const prefix = freshPrefix();
  a = await startInterestNode(redis.url, prefix, 'a');
  b = await startInterestNode(redis.url, prefix, 'b');
  await waitUntil(() => caughtUp(a, b), 'a knows b');
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis.stop();
});

const REALMS = ['r1', 'r2', '*'];
const PRODUCERS = ['p1', 'P2', 'TYO-MQ-ALL'];
const EVENTS = ['e1', 'E2', 'a/b', 'a/+', 'a/#', '+/b', '#', 'a', 'TM-ALL', '$sys/x', 'a/b/c'];
const CONSUMERS = ['c1', 'c2', 'c3'];

const subscription = fc.record({
  realm: fc.constantFrom(...REALMS),
  producer: fc.constantFrom(...PRODUCERS),
  event: fc.constantFrom(...EVENTS),
  consumer: fc.constantFrom(...CONSUMERS),
  topic: fc.boolean(),
  group: fc.option(fc.constantFrom('g1', 'g2'), { nil: undefined }),
  durable: fc.boolean(),
});

const state = fc.record({
  subs: fc.array(subscription, { maxLength: 8 }),
  /** Consumers bound live, then some of them taken offline again. */
  live: fc.array(fc.tuple(fc.constantFrom(...CONSUMERS), fc.constantFrom(...REALMS)), {
    maxLength: 3,
  }),
  offline: fc.array(fc.constantFrom(...CONSUMERS), { maxLength: 2 }),
  /** Subscriptions removed again (by index). */
  removed: fc.array(fc.nat(7), { maxLength: 3 }),
});

const produced = fc.record({
  realm: fc.constantFrom(...REALMS, 'r3'),
  from: fc.constantFrom(...PRODUCERS, 'p3'),
  event: fc.constantFrom(...EVENTS, 'a/x', 'z', 'A/B'),
  kind: fc.constantFrom('plain', 'plain', 'plain', 'realm', 'group'),
  group: fc.option(fc.constantFrom('g1', 'g2'), { nil: null }),
  guaranteed: fc.boolean(),
});

type Produced = typeof produced extends fc.Arbitrary<infer T> ? T : never;

function toMessage(m: Produced): ProducedMessage {
  const broadcast = m.kind === 'plain' ? null : (m.kind as 'realm' | 'group');
  return message(m.event, m.from, m.realm, {
    broadcast,
    group: broadcast === 'group' ? m.group : null,
    guaranteed: m.guaranteed,
  });
}

describe('interest vs local routing', () => {
  it('targets b whenever b would deliver, for random states and messages', async () => {
    let delivered = 0;
    let targeted = 0;
    let total = 0;
    await fc.assert(
      fc.asyncProperty(
        state,
        fc.array(produced, { minLength: 10, maxLength: 25 }),
        async (s, msgs) => {
          for (const realm of [...b.realms.values()].map((r) => r.name)) b.realms.delete(realm);
          const records = s.subs.map((spec) => ({
            realm: spec.realm,
            record: b.subscribe(spec as SubscribeSpec),
          }));
          for (const [name, realm] of s.live) b.online(name, realm);
          for (const name of s.offline) for (const realm of REALMS) b.offline(name, realm);
          for (const i of s.removed) {
            const r = records[i];
            if (r) b.unsubscribe(r.record, r.realm);
          }
          await waitUntil(() => caughtUp(a, b), 'a caught up');
          expect(Object.fromEntries(b.sync.interest())).toEqual(await publishedInterest());
          for (const m of msgs) {
            const msg = toMessage(m);
            const wants = await b.wouldDeliver(msg);
            const hit = a.sync.targets(msg, ['b']).length === 1;
            total++;
            if (wants) delivered++;
            if (hit) targeted++;
            if (wants && !hit) {
              throw new Error(`b would deliver ${JSON.stringify(msg)} but is not targeted`);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
    console.info(
      `interest property: ${total} messages, b would deliver ${delivered}, targeted ${targeted}`,
    );
    expect(delivered).toBeGreaterThan(0);
  });
});

/** b's hash as stored in Redis, without `epoch`/`rev`. */
async function publishedInterest(): Promise<Record<string, string>> {
  const hash = await b.links.command.hgetall(`${b.prefix}:interest:b`);
  delete hash.epoch;
  delete hash.rev;
  return hash;
}
