/**
 * DLQ and stats commands (spec/protocol-admin.md §8.2, §19 "phase5-http-api" command items)
 * with Switchboard's extensions: paging, filters, bulk replay/discard, replay markers, and the
 * per-realm queue/DLQ/durable-subscription figures of `stats`.
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../../shared/protocol-events';
import { useBroker } from '../../helpers/broker-harness';
import { waitFor } from '../../helpers/wait';
import { adminSettings, manager } from './management-client';

const env = (message: unknown) => ({ event: 'job', message, from: 'fleet' });

describe('DLQ and stats commands', () => {
  const ctx = useBroker(adminSettings());

  async function seed(n: number, consumer = 'w1', realm = 'default', event = 'fleet-job') {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = await ctx.h.broker.store.enqueue(realm, event, {
        consumer,
        payload: env(i),
        producer: 'fleet',
      });
      await ctx.h.broker.store.deadLetter(id, 'ack timeout after 3 attempt(s)');
      ids.push(id);
    }
    return ids;
  }

  it('dlq_list lists, filters and pages', async () => {
    const a = await seed(5, 'w1');
    const b = await seed(2, 'w2');
    await seed(1, 'w1', 'other');
    const m = await manager(ctx.h);
    const all = await m.run({ command: 'dlq_list' });
    expect(all.realm).toBeNull();
    expect(all.entries).toHaveLength(8);
    const realm = await m.run({ command: 'dlq_list', realm: 'default' });
    expect(realm.realm).toBe('default');
    expect(realm.entries.map((e: { id: string }) => e.id)).toEqual([...a, ...b]);
    expect(realm.entries[0]).toMatchObject({
      realm: 'default',
      event: 'fleet-job',
      consumer: 'w1',
      reason: 'ack timeout after 3 attempt(s)',
    });
    const byConsumer = await m.run({ command: 'dlq_list', realm: 'default', consumer: 'w2' });
    expect(byConsumer.entries.map((e: { id: string }) => e.id)).toEqual(b);
    expect((await m.run({ command: 'dlq_list', event: 'nope' })).entries).toEqual([]);

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await m.run({
        command: 'dlq_list',
        realm: 'default',
        limit: 3,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.total).toBe(7);
      pages.push(...page.entries.map((e: { id: string }) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(pages).toEqual([...a, ...b]);
    expect((await m.run({ command: 'dlq_list', limit: 0 })).code).toBe(400);
  });

  it('dlq_replay re-queues for the consumer with replay markers; dlq_discard; unknown → 404', async () => {
    const h = ctx.h;
    const [first, second] = await seed(2, 'w1', 'default', subscriptionKey('fleet', 'job'));
    const m = await manager(h);
    expect((await m.run({ command: 'dlq_list' })).entries).toHaveLength(2);
    const [dead] = (await m.run({ command: 'dlq_list' })).entries as Array<{
      id: string;
      dead_lettered_at: string;
    }>;
    const replay = await m.run({ command: 'dlq_replay', msgId: first });
    // A new id for the re-queued copy (as the reference), with the replay markers alongside.
    expect(replay).toEqual({
      ok: true,
      msg_id: first,
      new_msg_id: expect.stringMatching(/^msg-[0-9a-z]+-[0-9a-f]{12}$/),
      replay_count: 1,
      first_dead_lettered_at: dead!.dead_lettered_at,
      // Where the copy went (Switchboard extension, for the console's replay trail).
      realm: 'default',
      consumer: 'w1',
      event: subscriptionKey('fleet', 'job'),
    });
    expect(replay.new_msg_id).not.toBe(first);
    expect(await m.run({ command: 'dlq_discard', id: second })).toEqual({
      ok: true,
      msg_id: second,
    });
    expect((await m.run({ command: 'dlq_list' })).entries).toEqual([]);
    expect(await m.run({ command: 'dlq_replay', msg_id: first })).toEqual({
      ok: false,
      code: 404,
      message: 'DLQ message not found',
    });
    expect(await m.run({ command: 'dlq_replay' })).toEqual({
      ok: false,
      code: 400,
      message: 'msg_id is required',
    });
    expect(await m.run({ command: 'dlq_discard', msg_id: 'msg-unknown' })).toEqual({
      ok: true,
      msg_id: 'msg-unknown',
    });

    // The re-queued copy reaches its consumer when it subscribes, marked as a replay.
    const consumer = await h.connect();
    consumer.emit(ClientEvent.CONSUMER, { name: 'w1', id: 'w1', consumer_id: 'w1' });
    const delivered = waitFor<DeliveryEnvelope>(
      consumer,
      consumeEvent(subscriptionKey('fleet', 'job')),
    );
    consumer.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'fleet',
      consumer: 'w1',
      consumer_id: 'w1',
      durable: true,
      ack: true,
    });
    const envelope = await delivered;
    expect(envelope.message).toBe(0);
    expect(envelope.msgId).toBe(replay.new_msg_id);
    expect(envelope.replay_count).toBe(1);
    expect(envelope.first_dead_lettered_at).toBe(dead!.dead_lettered_at);
    // The consumer ACKs the copy by the id it was delivered with.
    const acked = await consumer
      .timeout(2_000)
      .emitWithAck(ClientEvent.ACK, { msgId: envelope.msgId });
    expect(acked).toEqual({ ok: true, msgId: replay.new_msg_id });
    expect(await h.broker.store.get(replay.new_msg_id)).toBeNull();
  });

  it('bulk dlq_replay / dlq_discard with ids, realm-restricted', async () => {
    const ids = await seed(6);
    const [otherId] = await seed(1, 'w1', 'other');
    const m = await manager(ctx.h);
    const replay = await m.run({
      command: 'dlq_replay',
      realm: 'default',
      ids: [...ids.slice(0, 3), otherId, 'msg-x'],
    });
    expect(replay.replayed.map((r: { msg_id: string }) => r.msg_id)).toEqual(ids.slice(0, 3));
    const replayed = replay.replayed as Array<{ new_msg_id: string; replay_count: number }>;
    expect(new Set(replayed.map((r) => r.new_msg_id)).size).toBe(3);
    expect(replayed.every((r) => !ids.includes(r.new_msg_id) && r.replay_count === 1)).toBe(true);
    for (const r of replay.replayed) {
      expect(r).toMatchObject({ realm: 'default', consumer: 'w1', event: 'fleet-job' });
    }
    const queued = await ctx.h.broker.store.dequeue('default', 'fleet-job', 'w1');
    expect(queued.map((e) => e.id)).toEqual(replayed.map((r) => r.new_msg_id));
    expect(replay.not_found).toEqual([otherId, 'msg-x']);
    const discard = await m.run({ command: 'dlq_discard', ids: ids.slice(3) });
    expect(discard).toEqual({ ok: true, discarded: ids.slice(3), not_found: [] });
    expect((await m.run({ command: 'dlq_list' })).entries.map((e: { id: string }) => e.id)).toEqual(
      [otherId],
    );
    expect((await m.run({ command: 'dlq_replay', ids: [] })).code).toBe(400);
    expect((await m.run({ command: 'dlq_discard', ids: [1, 2] })).code).toBe(400);
  });

  it('stats: online counts, subscriptions, queue and DLQ depth, durable backlog', async () => {
    const h = ctx.h;
    await h.producer('fleet');
    const consumer = await h.connect();
    consumer.emit(ClientEvent.CONSUMER, { name: 'w1', id: 'w1', consumer_id: 'w1' });
    consumer.emit(ClientEvent.SUBSCRIBE, {
      event: 'job',
      producer: 'fleet',
      consumer: 'w1',
      consumer_id: 'w1',
      durable: true,
    });
    await consumer.timeout(2_000).emitWithAck(ClientEvent.PING, {});
    const key = subscriptionKey('fleet', 'job');
    await h.broker.store.enqueue('default', key, {
      consumer: 'w1',
      payload: env('x'),
      producer: 'fleet',
    });
    await h.broker.store.enqueue('default', key, {
      consumer: 'w1',
      payload: env('y'),
      producer: 'fleet',
    });
    await seed(1, 'w9');
    const m = await manager(h);
    const { ok, stats } = await m.run({ command: 'stats' });
    expect(ok).toBe(true);
    const realm = stats.realms.default;
    expect(realm.producers.online).toBe(1);
    expect(realm.consumers.online).toBe(1);
    expect(realm.subscriptions).toBeGreaterThanOrEqual(1);
    expect(realm.queued).toBe(2);
    expect(realm.dlq).toBe(1);
    expect(realm.durable_subscriptions).toEqual([
      { key, consumer: 'w1', consumer_id: 'w1', online: true, backlog: 2 },
    ]);
    expect(stats.connections_current).toBeGreaterThanOrEqual(3);
  });
});
