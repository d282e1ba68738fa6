/**
 * `list_queues`, `peek_queue`, `purge_queue`, `discard_queued` (issue 27; docs/management.md "Queues") on a real
 * broker with the SQLite store: an offline durable consumer's stored copies are counted,
 * peeked without changing their state and purged (all, or chosen ones by id with discard_queued); in-flight copies
 * are counted apart and survive a purge; a realm manager key reaches its own realm only.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Protocol } from '../../../shared/protocol-events';
import {
  produce,
  startBroker,
  subscribe,
  sync,
  type BrokerSettings,
  type Harness,
} from '../../helpers/broker-harness';
import { waitUntil } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { adminSettings, manager, type Manager } from './management-client';

const ALPHA_KEY = 'alpha-manager-key-7f3e';
const N = 7;

let dir: TempDir;
let h: Harness;
let m: Manager;

beforeEach(async () => {
  dir = await makeTempDir();
  const settings = adminSettings(
    { storage: 'sqlite', storage_options: { filename: join(dir.path, 'q.sqlite') } },
    { realms: { default: { required: false }, alpha: { manager_key: ALPHA_KEY } } },
  );
  h = await startBroker(settings as BrokerSettings);
  m = await manager(h);
});

afterEach(async () => {
  await h.close();
  await dir.remove();
});

interface QueueStats {
  realms: Record<string, { queued?: number } | undefined>;
}
const stored = (): number => (h.broker.getStats() as QueueStats).realms.default?.queued ?? 0;

/** `worker` subscribes durably to `fleet/job`, goes offline, and `n` copies are stored. */
async function offlineQueue(n: number): Promise<void> {
  const worker = await h.consumer('worker');
  await subscribe(worker, 'worker', 'fleet', 'job', { durable: true });
  await h.disconnect(worker);
  const producer = await h.producer('fleet');
  for (let i = 0; i < n; i++) produce(producer, 'fleet', 'job', { n: i, text: 'x'.repeat(300) });
  await sync(producer);
  await waitUntil(() => stored() === n, `${n} copies stored`);
}

describe('queue commands', () => {
  it('lists, peeks (state unchanged) and purges an offline durable queue', async () => {
    await offlineQueue(N);
    const list = await m.run({ command: 'list_queues' });
    expect(list).toMatchObject({ ok: true, realm: null, total: 1, next_cursor: null });
    const [row] = list.queues;
    expect(row).toMatchObject({
      realm: 'default',
      consumer: 'worker',
      consumer_id: 'worker',
      group: null,
      subscribed: true,
      online: false,
      stored: N,
      ready: N,
      in_flight: 0,
    });
    expect(row.oldest_ready_age_ms).toBeGreaterThanOrEqual(0);

    const first = await m.run({
      command: 'peek_queue',
      realm: 'default',
      consumer: 'worker',
      limit: 5,
    });
    expect(first).toMatchObject({ ok: true, key: row.key, stored: N, next_cursor: '5' });
    expect(first.messages).toHaveLength(5);
    expect(first.messages[0]).toMatchObject({
      event: 'job',
      producer: 'fleet',
      attempts: 0,
      in_flight: false,
      truncated: true,
    });
    expect(first.messages[0].preview).toHaveLength(256);
    expect(first.messages[0].size).toBeGreaterThan(300);
    const second = await m.run({
      command: 'peek_queue',
      realm: 'default',
      consumer: 'worker',
      limit: 5,
      cursor: first.next_cursor,
    });
    expect(second.messages).toHaveLength(N - 5);
    expect(second.next_cursor).toBeNull();
    const ids = [...first.messages, ...second.messages].map((x: { msg_id: string }) => x.msg_id);
    expect(new Set(ids).size).toBe(N);
    // Peeking changed nothing: the same copies, attempts still 0, counts unchanged.
    const stillThere = await h.broker.store.dequeue('default', row.key, 'worker');
    expect(stillThere.map((e) => e.id)).toEqual(ids);
    expect(stillThere.every((e) => e.attempts === 0)).toBe(true);
    expect((await m.run({ command: 'list_queues' })).queues[0]).toMatchObject({ ready: N });

    const purge = await m.run({ command: 'purge_queue', realm: 'default', consumer: 'worker' });
    expect(purge).toMatchObject({ ok: true, purged: N, in_flight_kept: 0 });
    expect(stored()).toBe(0);
    expect(await h.broker.store.dequeue('default', row.key, 'worker')).toEqual([]);
    expect((await m.run({ command: 'list_queues' })).queues[0]).toMatchObject({
      stored: 0,
      ready: 0,
      oldest_ready_age_ms: null,
    });
  });

  it('discard_queued deletes only the chosen ready copies and names the ones it did not find', async () => {
    await offlineQueue(N);
    const peek = await m.run({ command: 'peek_queue', realm: 'default', consumer: 'worker' });
    const ids = peek.messages.map((x: { msg_id: string }) => x.msg_id) as string[];
    const chosen = [ids[1]!, ids[4]!];
    // purge_queue refuses ids rather than purge everything (a broker that ignored them would).
    expect(
      await m.run({ command: 'purge_queue', realm: 'default', consumer: 'worker', ids: chosen }),
    ).toMatchObject({ ok: false, code: 400 });
    expect(stored()).toBe(N);
    const purge = await m.run({
      command: 'discard_queued',
      realm: 'default',
      consumer: 'worker',
      ids: [...chosen, chosen[0], 'no-such-copy'],
    });
    expect(purge).toMatchObject({
      ok: true,
      discarded: 2,
      in_flight_kept: 0,
      not_found: ['no-such-copy'],
      queues: [{ key: peek.key, consumer_id: 'worker', purged: 2 }],
    });
    // The others are still there, in their order; the ledger's count agrees.
    const left = await h.broker.store.dequeue('default', peek.key, 'worker');
    expect(left.map((e) => e.id)).toEqual(ids.filter((id) => !chosen.includes(id)));
    expect(stored()).toBe(N - 2);
    expect((await m.run({ command: 'list_queues' })).queues[0]).toMatchObject({ ready: N - 2 });
    for (const bad of [undefined, [], 'x', [''], [1]]) {
      expect(
        await m.run({ command: 'discard_queued', realm: 'default', consumer: 'worker', ids: bad }),
      ).toMatchObject({ ok: false, code: 400 });
    }
    expect(stored()).toBe(N - 2);
  });

  it('counts un-ACKed copies as in flight and keeps them on purge', async () => {
    const worker = await h.consumer('worker');
    await subscribe(worker, 'worker', 'fleet', 'job', { durable: true, manualAck: true });
    let received = 0;
    worker.onAny((event: string) => {
      if (event.startsWith('CONSUME')) received++;
    });
    const producer = await h.producer('fleet');
    for (let i = 0; i < 3; i++) produce(producer, 'fleet', 'job', { n: i });
    await sync(producer);
    await waitUntil(() => received === 3, 'three copies delivered, none ACKed');
    const [row] = (await m.run({ command: 'list_queues', consumer: 'worker' })).queues;
    expect(row).toMatchObject({ online: true, stored: 3, in_flight: 3, ready: 0 });
    const peek = await m.run({ command: 'peek_queue', realm: 'default', consumer: 'worker' });
    expect(peek.messages.every((x: { in_flight: boolean }) => x.in_flight)).toBe(true);
    expect(
      await m.run({ command: 'purge_queue', realm: 'default', consumer: 'worker' }),
    ).toMatchObject({ ok: true, purged: 0, in_flight_kept: 3 });
    // Chosen in-flight copies are kept too.
    expect(
      await m.run({
        command: 'discard_queued',
        realm: 'default',
        consumer: 'worker',
        ids: [peek.messages[0].msg_id],
      }),
    ).toMatchObject({ ok: true, discarded: 0, in_flight_kept: 1, not_found: [] });
    expect(stored()).toBe(3);
  });

  it('filters, pages, and refuses what it must', async () => {
    await offlineQueue(2);
    const other = await h.consumer('other');
    await subscribe(other, 'other', 'fleet', 'job', { durable: true });
    const all = await m.run({ command: 'list_queues', limit: 1 });
    expect(all).toMatchObject({ ok: true, total: 2 });
    expect(all.queues).toHaveLength(1);
    const rest = await m.run({ command: 'list_queues', limit: 1, cursor: all.next_cursor });
    expect(rest.queues).toHaveLength(1);
    expect(rest.next_cursor).toBeNull();
    expect(new Set([all.queues[0].consumer, rest.queues[0].consumer])).toEqual(
      new Set(['worker', 'other']),
    );
    expect((await m.run({ command: 'list_queues', consumer: 'other' })).queues).toEqual([
      expect.objectContaining({ consumer: 'other', online: true, stored: 0 }),
    ]);
    expect(await m.run({ command: 'list_queues', limit: 0 })).toMatchObject({
      ok: false,
      code: 400,
    });
    expect(
      await m.run({ command: 'peek_queue', realm: 'default', consumer: 'nobody' }),
    ).toMatchObject({ ok: false, code: 404, message: 'queue not found' });
    expect(await m.run({ command: 'purge_queue', realm: 'default' })).toMatchObject({
      ok: false,
      code: 400,
      message: 'consumer is required',
    });

    // A realm manager key: its own realm only (the body's realm is forced), never another's.
    const own = await m.run({ command: 'list_queues', realm: 'alpha' }, ALPHA_KEY);
    expect(own).toMatchObject({ ok: true, realm: 'alpha', queues: [], total: 0 });
    const refused = await m.run(
      { command: 'purge_queue', realm: Protocol.DEFAULT_REALM, consumer: 'worker' },
      ALPHA_KEY,
    );
    expect(refused).toMatchObject({ ok: false, code: 401 });
    expect(await m.run({ command: 'list_queues' }, 'not-a-manager-key-at-all')).toMatchObject({
      ok: false,
      code: 401,
    });
    expect(stored()).toBe(2);
  });
});
