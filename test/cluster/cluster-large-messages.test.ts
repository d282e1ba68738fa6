/**
 * Large messages across the cluster (docs/cluster.md): Redis cuts a subscriber whose pub/sub
 * backlog passes `client-output-buffer-limit pubsub` (here lowered to 1 MiB so the test stays
 * small). A message above `inline_max_bytes` goes through a Redis key instead: the peer gets
 * it, in order with the small messages around it, and its link stays up. The control run
 * (everything inline) shows the failure this prevents. The streams relay reads inboxes with
 * XREAD, a normal reply that limit does not apply to: inline, the message still arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerEvent } from '../../shared/protocol-events';
import { delay, waitUntil } from '../helpers/wait';
import { exactConsumeEvent, produce, subscribe, type Harness } from '../helpers/broker-harness';
import { startCluster } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer(['--client-output-buffer-limit', 'pubsub 1mb 512kb 60']);
});
afterAll(async () => {
  await redis.stop();
});

const JOB = exactConsumeEvent('fleet', 'job');
const BIG = 'x'.repeat(3 * 1024 * 1024);

async function crossNode(
  inlineMax: number,
  waitMs: number,
  relay: 'streams' | 'pubsub' = 'streams',
): Promise<{ got: string[]; redisUp: boolean }> {
  const cluster = await startCluster(
    redis.url,
    ['big-a', 'big-b'],
    {},
    {},
    {
      inline_max_bytes: inlineMax,
      relay,
    },
  );
  try {
    const [a, b] = cluster.nodes as [Harness, Harness];
    const w = await b.consumer('w');
    await subscribe(w, 'w', 'fleet', 'job');
    const p = await a.producer('fleet');
    // Deliveries in arrival order; the 3 MiB one arrives as CONSUME_CHUNK frames (§14.2).
    const got: string[] = [];
    w.on(JOB, (m: { message: string }) => got.push(m.message));
    w.on(ServerEvent.CONSUME_CHUNK, (f: { index: number; total: number }) => {
      if (f.index === f.total - 1) got.push('big');
    });
    produce(p, 'fleet', 'job', 'before');
    produce(p, 'fleet', 'job', BIG);
    produce(p, 'fleet', 'job', 'after');
    await waitUntil(() => got.length >= 3, 'three deliveries', waitMs).catch(() => undefined);
    await delay(200);
    return { got, redisUp: b.broker.getStats().cluster?.redis === 'up' };
  } finally {
    await cluster.close();
  }
}

describe('a 3 MiB message between nodes', () => {
  it('arrives through a Redis key, in order, and the link stays up (streams relay)', async () => {
    const { got, redisUp } = await crossNode(1024 * 1024, 10_000);
    expect(got).toEqual(['before', 'big', 'after']);
    expect(redisUp).toBe(true);
  });

  it('arrives through a Redis key, in order, and the link stays up (pub/sub relay)', async () => {
    const { got, redisUp } = await crossNode(1024 * 1024, 10_000, 'pubsub');
    expect(got).toEqual(['before', 'big', 'after']);
    expect(redisUp).toBe(true);
  });

  it('(control) sent inline on the pub/sub channel, it gets the peer cut off by Redis', async () => {
    const { got } = await crossNode(512 * 1024 * 1024, 3_000, 'pubsub');
    expect(got).not.toEqual(['before', 'big', 'after']);
  });

  it('sent inline into a stream inbox, it arrives: no pub/sub output limit applies', async () => {
    const { got, redisUp } = await crossNode(512 * 1024 * 1024, 10_000);
    expect(got).toEqual(['before', 'big', 'after']);
    expect(redisUp).toBe(true);
  });
});
