/**
 * `remove_consumer` (Switchboard extension, docs/management.md): forgets an offline consumer —
 * registration, subscriptions (durable ones too), and the copies queued for it — refuses an
 * online one, and answers 404 when nothing of that name is left.
 */
import { describe, expect, it } from 'vitest';
import { Protocol } from '../../../shared/protocol-events';
import { produce, subscribe, sync, useBroker, type Harness } from '../../helpers/broker-harness';
import { waitUntil } from '../../helpers/wait';
import { adminSettings, manager } from './management-client';

interface QueueStats {
  realms: Record<string, { queued?: number; queues?: unknown[] } | undefined>;
}

describe('remove_consumer', () => {
  const ctx = useBroker(adminSettings());
  const queued = (h: Harness) => (h.broker.getStats() as QueueStats).realms.default?.queued ?? 0;

  it('forgets an offline consumer with its subscriptions and queued copies', async () => {
    const { h } = ctx;
    const gone = await h.consumer('gone');
    await subscribe(gone, 'gone', Protocol.ALL_PUBLISHERS, 'home/#', { mode: 'topic' });
    await subscribe(gone, 'gone', 'fleet', 'job', { durable: true });
    const keep = await h.consumer('keep');
    await subscribe(keep, 'keep', 'fleet', 'job', { durable: true });
    gone.close();
    await waitUntil(() => h.stats().consumers.online === 1, 'gone is offline');
    const producer = await h.producer('fleet');
    produce(producer, 'fleet', 'job', { n: 1 });
    produce(producer, 'fleet', 'home/kitchen', { n: 2 }, { guaranteed: true });
    await sync(producer);
    await waitUntil(() => queued(h) === 2, 'two copies queued');

    const m = await manager(h);
    expect(await m.run({ command: 'remove_consumer', realm: 'default', consumer: 'gone' })).toEqual(
      {
        ok: true,
        realm: 'default',
        consumer: 'gone',
        removed_subscriptions: 2,
        purged: 2,
      },
    );
    expect(h.stats()).toMatchObject({ consumers: { total: 1, online: 1 }, subscriptions: 1 });
    expect(queued(h)).toBe(0);
    expect(await h.broker.store.loadSubscriptions()).toEqual([
      expect.objectContaining({ consumer: 'keep' }),
    ]);
    // Nothing of that name is left now.
    expect(
      await m.run({ command: 'remove_consumer', realm: 'default', consumer: 'gone' }),
    ).toMatchObject({ ok: false, code: 404, message: 'consumer not found' });
  });

  it('refuses an online consumer and a missing name', async () => {
    const { h } = ctx;
    const live = await h.consumer('live');
    await subscribe(live, 'live', 'fleet', 'job');
    const m = await manager(h);
    expect(
      await m.run({ command: 'remove_consumer', realm: 'default', consumer: 'live' }),
    ).toMatchObject({ ok: false, code: 409, message: 'consumer is online' });
    expect(h.stats()).toMatchObject({ consumers: { total: 1, online: 1 }, subscriptions: 1 });
    expect(await m.run({ command: 'remove_consumer', realm: 'default' })).toMatchObject({
      ok: false,
      code: 400,
      message: 'consumer is required',
    });
  });
});
