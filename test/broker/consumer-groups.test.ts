/**
 * Consumer groups (spec §3.3 `group`, §7 steps 6–7, §12; reference test §20 item 31).
 */
import { describe, expect, it } from 'vitest';
import {
  anyProducerKey,
  consumeEvent,
  disconnectEvent,
  Protocol,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
  waitForConsumersOnline,
  type Recorder,
  type Socket,
} from '../helpers/broker-harness';
import type { SubscribeOptions } from '../helpers/stock-clients';
import { delay, QUIET_MS, waitUntil } from '../helpers/wait';

const ctx = useBroker();

interface Member {
  name: string;
  socket: Socket;
  rec: Recorder;
}

async function member(
  name: string,
  producer: string,
  event: string,
  opts: SubscribeOptions,
): Promise<Member> {
  const socket = await ctx.h.consumer(name);
  await subscribe(socket, name, producer, event, opts);
  return { name, socket, rec: record(socket) };
}

/** `message.seq` of every `event` a member received, in arrival order. */
function seqs(m: Member, event: string): number[] {
  return m.rec.of(event).map((e) => (e as { message: { seq: number } }).message.seq);
}

async function waitForTotal(members: Member[], event: string, n: number): Promise<void> {
  await waitUntil(
    () => members.reduce((sum, m) => sum + m.rec.of(event).length, 0) >= n,
    `${n} deliveries of ${event} across the group`,
    10_000,
  );
  await delay(QUIET_MS); // and no more than n
}

describe('consumer groups (§12)', () => {
  it('splits 4 messages between 2 members while an ungrouped observer gets all 4 in order (§20.31)', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await member('a', 'fleet', 'job', { group: 'workers' });
    const b = await member('b', 'fleet', 'job', { group: 'workers' });
    const observer = await member('observer', 'fleet', 'job', {});
    const event = exactConsumeEvent('fleet', 'job');

    for (let seq = 0; seq < 4; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitForTotal([a, b], event, 4);
    await waitUntil(() => observer.rec.of(event).length === 4, 'observer got 4');

    const got = [...seqs(a, event), ...seqs(b, event)];
    expect(got).toHaveLength(4);
    expect(new Set(got).size).toBe(4);
    expect(seqs(a, event).length).toBeGreaterThanOrEqual(1);
    expect(seqs(b, event).length).toBeGreaterThanOrEqual(1);
    expect(seqs(observer, event)).toEqual([0, 1, 2, 3]);
    // Group deliveries carry the normal §8 envelope.
    expect(a.rec.of(event)[0]).toEqual({
      event: 'job',
      message: { seq: seqs(a, event)[0] },
      from: 'fleet',
    });
  });

  it('round-robins within one event: consecutive messages go to different members, evenly', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await member('a', 'fleet', 'job', { group: 'rr' });
    const b = await member('b', 'fleet', 'job', { group: 'rr' });
    const event = exactConsumeEvent('fleet', 'job');
    for (let seq = 0; seq < 6; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitForTotal([a, b], event, 6);
    const owner = (seq: number): string => (seqs(a, event).includes(seq) ? 'a' : 'b');
    const owners = [0, 1, 2, 3, 4, 5].map(owner);
    expect(seqs(a, event)).toHaveLength(3);
    expect(seqs(b, event)).toHaveLength(3);
    for (let i = 1; i < owners.length; i++) expect(owners[i]).not.toBe(owners[i - 1]);
    // Each member sees its share in order.
    expect(seqs(a, event)).toEqual([...seqs(a, event)].sort((x, y) => x - y));
    expect(seqs(b, event)).toEqual([...seqs(b, event)].sort((x, y) => x - y));
  });

  it('gives each of two groups on the same event one copy of every message', async () => {
    const producer = await ctx.h.producer('fleet');
    const g1 = [
      await member('a1', 'fleet', 'job', { group: 'g1' }),
      await member('b1', 'fleet', 'job', { group: 'g1' }),
    ];
    const g2 = [
      await member('a2', 'fleet', 'job', { group: 'g2' }),
      await member('b2', 'fleet', 'job', { group: 'g2' }),
    ];
    const event = exactConsumeEvent('fleet', 'job');
    for (let seq = 0; seq < 4; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitForTotal(g1, event, 4);
    await waitForTotal(g2, event, 4);
    for (const g of [g1, g2]) {
      const all = g.flatMap((m) => seqs(m, event)).sort((x, y) => x - y);
      expect(all).toEqual([0, 1, 2, 3]);
    }
  });

  it('balances a topic subscription group (§11 + §12)', async () => {
    const producer = await ctx.h.producer('plant');
    const pattern = 'org/acme/machine/+/cmd';
    const opts: SubscribeOptions = { group: 'workers', mode: 'topic' };
    const a = await member('wa', Protocol.ALL_PUBLISHERS, pattern, opts);
    const b = await member('wb', Protocol.ALL_PUBLISHERS, pattern, opts);
    const event = consumeEvent(anyProducerKey(pattern));
    for (let seq = 0; seq < 4; seq++)
      produce(producer, 'plant', `org/acme/machine/m-0${seq}/cmd`, { seq });
    await waitForTotal([a, b], event, 4);
    const all = [...seqs(a, event), ...seqs(b, event)].sort((x, y) => x - y);
    expect(all).toEqual([0, 1, 2, 3]);
    expect(seqs(a, event).length).toBeGreaterThanOrEqual(1);
    expect(seqs(b, event).length).toBeGreaterThanOrEqual(1);
  });

  it('moves to the remaining live member when one disconnects mid-stream; nothing sent after the disconnect is lost', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await member('a', 'fleet', 'job', { group: 'workers' });
    const b = await member('b', 'fleet', 'job', { group: 'workers' });
    const observer = await member('observer', 'fleet', 'job', {});
    const event = exactConsumeEvent('fleet', 'job');

    for (let seq = 0; seq < 4; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitForTotal([a, b], event, 4);
    expect([...seqs(a, event), ...seqs(b, event)].sort((x, y) => x - y)).toEqual([0, 1, 2, 3]);

    a.socket.disconnect();
    await waitForConsumersOnline(ctx.h, 2); // b and observer

    for (let seq = 4; seq < 10; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitUntil(() => seqs(b, event).filter((s) => s >= 4).length === 6, 'b got 4..9', 10_000);
    expect(seqs(b, event).filter((s) => s >= 4)).toEqual([4, 5, 6, 7, 8, 9]);
    await waitUntil(() => observer.rec.of(event).length === 10, 'observer got all 10');
    expect(seqs(observer, event)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('loses nothing produced after the broker saw a member drop while the producer keeps streaming', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await member('a', 'fleet', 'job', { group: 'workers' });
    const b = await member('b', 'fleet', 'job', { group: 'workers' });
    const observer = await member('observer', 'fleet', 'job', {});
    const event = exactConsumeEvent('fleet', 'job');
    const total = 60;

    // The broker tells the producer DISCONNECT-<producerId> once it has processed a's drop (§15
    // step 4); everything the producer sends after that notice must reach b.
    let sent = 0;
    let cut = -1;
    producer.once(disconnectEvent(producer.id ?? ''), () => {
      cut = sent;
    });
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        produce(producer, 'fleet', 'job', { seq: sent });
        sent++;
        if (sent === 20) a.socket.io.engine.close(); // abrupt transport loss, mid-stream
        if (sent === total) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });
    await waitUntil(() => cut >= 0, 'the producer was told about the disconnect');
    expect(cut).toBeLessThan(total);
    await waitUntil(
      () => observer.rec.of(event).length === total,
      `observer got all ${total}`,
      10_000,
    );
    expect(seqs(observer, event)).toEqual(Array.from({ length: total }, (_, i) => i));

    const afterCut = Array.from({ length: total - cut }, (_, i) => cut + i);
    await waitUntil(
      () => afterCut.every((s) => seqs(b, event).includes(s)),
      `b got every message from ${cut} on`,
      10_000,
    );
    const delivered = [...seqs(a, event), ...seqs(b, event)];
    expect(new Set(delivered).size).toBe(delivered.length); // never twice
    expect(seqs(b, event).filter((s) => s >= cut)).toEqual(afterCut); // in order
  });

  it('resumes balancing when the member comes back and resubscribes', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await member('a', 'fleet', 'job', { group: 'workers' });
    const b = await member('b', 'fleet', 'job', { group: 'workers' });
    a.socket.disconnect();
    await waitForConsumersOnline(ctx.h, 1);
    const a2 = await member('a', 'fleet', 'job', { group: 'workers' });
    await sync(producer);
    const event = exactConsumeEvent('fleet', 'job');
    for (let seq = 0; seq < 4; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitForTotal([a2, b], event, 4);
    expect(seqs(a2, event)).toHaveLength(2);
    expect(seqs(b, event)).toHaveLength(2);
  });
  it('collects a group across keys: an exact member and a topic member share the messages (§12)', async () => {
    const producer = await ctx.h.producer('fleet');
    const exact = await member('exact', 'fleet', 'org/a', { group: 'mixed' });
    const topic = await member('topic', Protocol.ALL_PUBLISHERS, 'org/#', {
      group: 'mixed',
      mode: 'topic',
    });
    const exactEvent = exactConsumeEvent('fleet', 'org/a');
    const topicEvent = consumeEvent(anyProducerKey('org/#'));
    for (let seq = 0; seq < 4; seq++) produce(producer, 'fleet', 'org/a', { seq });
    await waitUntil(
      () => exact.rec.all.length + topic.rec.all.length >= 4,
      '4 deliveries across the mixed group',
    );
    await delay(QUIET_MS);
    const got = [...seqs(exact, exactEvent), ...seqs(topic, topicEvent)].sort((x, y) => x - y);
    expect(got).toEqual([0, 1, 2, 3]); // one member per message, across both keys
    expect(exact.rec.all.length).toBeGreaterThanOrEqual(1);
    expect(topic.rec.all.length).toBeGreaterThanOrEqual(1);
  });

  it('counts a consumer with two matching subscriptions in the group as two candidates (§12, keep)', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await member('a', 'fleet', 'job', { group: 'g' });
    await subscribe(a.socket, 'a', Protocol.ALL_PUBLISHERS, 'job', { group: 'g' });
    const b = await member('b', 'fleet', 'job', { group: 'g' });
    for (let seq = 0; seq < 6; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitUntil(() => a.rec.all.length + b.rec.all.length >= 6, '6 deliveries');
    await delay(QUIET_MS);
    // Three candidates (a twice, b once), one counter: a gets 4 of 6, b gets 2.
    expect(a.rec.all.length).toBe(4);
    expect(b.rec.all.length).toBe(2);
  });

  it('leaves the group when the same key is re-subscribed without a group (§6.1 overwrite)', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await member('a', 'fleet', 'job', { group: 'g' });
    const b = await member('b', 'fleet', 'job', { group: 'g' });
    await subscribe(a.socket, 'a', 'fleet', 'job'); // no group now
    const event = exactConsumeEvent('fleet', 'job');
    for (let seq = 0; seq < 4; seq++) produce(producer, 'fleet', 'job', { seq });
    await waitUntil(
      () => seqs(a, event).length === 4 && seqs(b, event).length === 4,
      'both got all 4',
    );
    await delay(QUIET_MS);
    expect(seqs(a, event)).toEqual([0, 1, 2, 3]);
    expect(seqs(b, event)).toEqual([0, 1, 2, 3]); // alone in the group
  });
});
