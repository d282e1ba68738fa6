/**
 * `dlq_replay` of a consumer group's dead letter (issue 22 item 23; docs/management.md "DLQ
 * commands"): with the member it was dead-lettered from offline, the copy goes to an online
 * member of the group, which receives and ACKs it; the offline member gets no duplicate when
 * it returns. With nobody of the group online it waits in the original member's queue.
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../../shared/protocol-events';
import { subscribe, sync, useBroker, type Socket } from '../../helpers/broker-harness';
import { waitFor, waitUntil } from '../../helpers/wait';
import { adminSettings, manager } from './management-client';

const KEY = subscriptionKey('fleet', 'job');
const OPTS = { group: 'workers', durable: true, ack: true } as const;

describe('dlq_replay of a consumer group entry', () => {
  const ctx = useBroker(adminSettings());

  async function member(id: string): Promise<Socket> {
    const s = await ctx.h.consumer(id, { consumerId: id });
    await subscribe(s, id, 'fleet', 'job', OPTS);
    return s;
  }
  async function deadLetterFor(consumer: string, message: unknown): Promise<string> {
    const store = ctx.h.broker.store;
    const id = await store.enqueue('default', KEY, {
      consumer,
      payload: { event: 'job', message, from: 'fleet' },
      producer: 'fleet',
    });
    await store.deadLetter(id, 'ack timeout after 3 attempt(s)');
    return id;
  }
  const offline = async (s: Socket) => {
    s.disconnect();
    await waitUntil(() => ctx.h.stats().consumers.online === 1, 'one member left online');
  };

  it('goes to an online member when the original member is offline', async () => {
    const w1 = await member('w1');
    const w2 = await member('w2');
    await offline(w1);
    const dead = await deadLetterFor('w1', { job: 7 });
    const delivered = waitFor<DeliveryEnvelope>(w2, consumeEvent(KEY));
    const m = await manager(ctx.h);
    const replay = await m.run({ command: 'dlq_replay', msg_id: dead });
    // The reply names where the copy went: the online member, not the one it came from.
    expect(replay).toMatchObject({
      ok: true,
      msg_id: dead,
      replay_count: 1,
      realm: 'default',
      consumer: 'w2',
      event: KEY,
    });
    const envelope = await delivered;
    expect(envelope.message).toEqual({ job: 7 });
    expect(envelope.msgId).toBe(replay.new_msg_id);
    expect(await w2.timeout(2_000).emitWithAck(ClientEvent.ACK, { msgId: envelope.msgId })).toEqual(
      { ok: true, msgId: replay.new_msg_id },
    );
    const store = ctx.h.broker.store;
    expect(await store.dequeue('default', KEY, 'w1')).toEqual([]);
    expect(await store.dequeue('default', KEY, 'w2')).toEqual([]);

    // The original member comes back: nothing is waiting for it.
    const back = await member('w1');
    const got: unknown[] = [];
    back.on(consumeEvent(KEY), (e: unknown) => got.push(e));
    await sync(back);
    expect(got).toEqual([]);
  });

  it('waits in the original member queue while nobody of the group is online', async () => {
    const w1 = await member('w1');
    w1.disconnect();
    await waitUntil(() => ctx.h.stats().consumers.online === 0, 'group offline');
    const dead = await deadLetterFor('w1', { job: 8 });
    const m = await manager(ctx.h);
    const replay = await m.run({ command: 'dlq_replay', msg_id: dead });
    expect(replay).toMatchObject({ realm: 'default', consumer: 'w1', event: KEY });
    const queued = await ctx.h.broker.store.dequeue('default', KEY, 'w1');
    expect(queued.map((e) => e.id)).toEqual([replay.new_msg_id]);
  });
});
