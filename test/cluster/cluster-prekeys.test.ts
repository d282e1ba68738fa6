/**
 * The prekey directory shared over Redis (`spec/protocol-extensions.md` Note 3-E): real nodes
 * clustered over a real `redis-server`. A bundle published on node A is taken on node B with
 * the oldest one-time key; concurrent takes from both nodes hand out each key once; with Redis
 * stopped a take answers 503 (never a key), and works again once Redis is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { startBroker, type BrokerSettings, type Harness } from '../helpers/broker-harness';
import { clusterBlock, freshPrefix } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { consumerPayload } from '../helpers/stock-clients';
import { waitFor } from '../helpers/wait';
import { call } from '../broker/extensions/key-clients';
import { BUNDLE, oneTime, publishPrekeys, takePrekeys } from '../broker/extensions/prekey-clients';

let redis: RedisServer;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  const prefix = freshPrefix();
  const node = (id: string) =>
    startBroker({ cluster: clusterBlock(redis.url, prefix, id) } as BrokerSettings, { env: {} });
  a = await node('pk-a');
  b = await node('pk-b');
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await redis?.stop();
});

async function client(h: Harness, name: string) {
  const s = await h.connect();
  s.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role: 'both' });
  await waitFor(s, ServerEvent.AUTH_OK);
  s.emit(ClientEvent.CONSUMER, consumerPayload(name));
  await h.settle(s);
  return s;
}

describe('cluster prekey directory (Note 3-E)', () => {
  it('publish on A, take on B: the bundle and the oldest one-time key, once', async () => {
    const alice = await client(a, 'pk-alice');
    const bob = await client(b, 'pk-bob');
    expect(await publishPrekeys(alice, 'pk-alice', BUNDLE)).toEqual({
      ok: true,
      one_time_available: 3,
    });
    const first = await takePrekeys(bob, 'pk-alice');
    expect(first).toMatchObject({
      identity_key: 'IDENT-PUB',
      one_time_prekey_id: 1,
      one_time_prekey: 'OTP-1',
      one_time_remaining: 2,
    });
    expect((await takePrekeys(alice, 'pk-alice'))?.one_time_prekey).toBe('OTP-2');
    alice.disconnect();
    bob.disconnect();
  });

  it('20 concurrent takes on both nodes of a pool of 10 hand out each key exactly once', async () => {
    const owner = await client(a, 'pk-carol');
    expect(
      await publishPrekeys(owner, 'pk-carol', { ...BUNDLE, one_time_prekeys: oneTime(10) }),
    ).toMatchObject({ one_time_available: 10 });
    // Four requesters (5 takes each: Note 3-B's per-target budget), two on each node.
    const takers = await Promise.all([
      client(a, 't1'),
      client(a, 't2'),
      client(b, 't3'),
      client(b, 't4'),
    ]);
    const replies = await Promise.all(
      takers.flatMap((t) => Array.from({ length: 5 }, () => takePrekeys(t, 'pk-carol'))),
    );
    const keys = replies.map((r) => r?.one_time_prekey).filter((k) => typeof k === 'string');
    expect(keys).toHaveLength(10);
    expect(new Set(keys).size).toBe(10);
    for (const t of [owner, ...takers]) t.disconnect();
  });

  it('a republished id replaces in place; the cap of 100 holds across nodes', async () => {
    const dave = await client(a, 'pk-dave');
    const dave2 = await client(b, 'pk-dave');
    expect(
      await publishPrekeys(dave, 'pk-dave', { ...BUNDLE, one_time_prekeys: oneTime(60) }),
    ).toMatchObject({ one_time_available: 60 });
    expect(
      await publishPrekeys(dave2, 'pk-dave', {
        ...BUNDLE,
        one_time_prekeys: [{ id: 1, key: 'NEW-1' }, ...oneTime(60, 61)],
      }),
    ).toMatchObject({ one_time_available: 100 });
    const taker = await client(b, 'pk-eve');
    expect(await takePrekeys(taker, 'pk-dave')).toMatchObject({
      one_time_prekey_id: 1,
      one_time_prekey: 'NEW-1',
      one_time_remaining: 99,
    });
    for (const s of [dave, dave2, taker]) s.disconnect();
  });

  it('Redis stopped: a take answers 503, and works again after Redis is back', async () => {
    const frank = await client(a, 'pk-frank');
    await publishPrekeys(frank, 'pk-frank', { ...BUNDLE, one_time_prekeys: oneTime(2) });
    await redis.kill();
    expect(await call(frank, ClientEvent.PREKEY_TAKE, { identity: 'pk-frank' })).toMatchObject({
      ok: false,
      code: 503,
    });
    await redis.restart();
    // A fresh Redis (no persistence): republish, then the take is served again.
    const deadline = Date.now() + 10_000;
    let reply: { ok?: unknown } = {};
    while (Date.now() < deadline) {
      reply = await call(frank, ClientEvent.PREKEY_PUBLISH, {
        identity: 'pk-frank',
        ...BUNDLE,
        one_time_prekeys: oneTime(1),
      });
      if (reply.ok === true) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(reply).toMatchObject({ ok: true, one_time_available: 1 });
    expect((await takePrekeys(frank, 'pk-frank'))?.one_time_prekey).toBe('OTP-1');
    frank.disconnect();
  });
});
