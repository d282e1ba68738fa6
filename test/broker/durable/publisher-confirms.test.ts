/**
 * Publisher confirms (ARCHITECTURE §4, our extension): a PRODUCE with an acknowledgement
 * callback is answered only after every durable copy is committed.
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent } from '../../../shared/protocol-events';
import { startBroker, subscribe } from '../../helpers/broker-harness';
import { delay } from '../../helpers/wait';

type Confirm = { ok: boolean; msgIds?: string[]; code?: string; message?: string };

describe('publisher confirms', () => {
  it('confirms with the stored ids once committed, and with none when nothing is durable', async () => {
    const h = await startBroker({});
    try {
      for (const name of ['w1', 'w2']) {
        const c = await h.consumer(name);
        await subscribe(c, name, 'fleet', 'job', { durable: true });
        c.disconnect();
      }
      await delay(50);
      const p = await h.producer('fleet');
      const reply = (await p.timeout(3000).emitWithAck(ClientEvent.PRODUCE, {
        event: 'job',
        message: 'x',
        from: 'fleet',
      })) as Confirm;
      expect(reply.ok).toBe(true);
      expect(reply.msgIds).toHaveLength(2);
      for (const id of reply.msgIds!)
        expect((await h.broker.store.get(id))?.message.message).toBe('x');
      const none = (await p.timeout(3000).emitWithAck(ClientEvent.PRODUCE, {
        event: 'other',
        message: 1,
        from: 'fleet',
      })) as Confirm;
      expect(none).toEqual({ ok: true, msgIds: [] });
    } finally {
      await h.close();
    }
  });

  it('reports a copy refused by the queue cap, and stores nothing past it', async () => {
    const h = await startBroker({ limits: { max_queued_per_realm: 2 } });
    try {
      const c = await h.consumer('w1');
      await subscribe(c, 'w1', 'fleet', 'job', { durable: true });
      await h.disconnect(c);
      const p = await h.producer('fleet');
      const send = (m: number) =>
        p.timeout(3000).emitWithAck(ClientEvent.PRODUCE, {
          event: 'job',
          message: m,
          from: 'fleet',
        }) as Promise<Confirm>;
      expect((await send(1)).ok).toBe(true);
      expect((await send(2)).ok).toBe(true);
      const third = await send(3);
      expect(third).toMatchObject({ ok: false, code: 'SWB_ERR_QUEUE_FULL' });
      expect(await h.broker.store.countQueued('default')).toBe(2);
    } finally {
      await h.close();
    }
  });

  it('answers a confirm for a refused PRODUCE instead of leaving the publisher waiting', async () => {
    const h = await startBroker({});
    try {
      const p = await h.producer('fleet');
      const missingEvent = (await p
        .timeout(3000)
        .emitWithAck(ClientEvent.PRODUCE, { message: 'm' })) as Confirm;
      expect(missingEvent).toMatchObject({ ok: false, code: 'SWB_ERR_VALIDATION' });
      const notJson = (await p
        .timeout(3000)
        .emitWithAck(ClientEvent.PRODUCE, '{not json')) as Confirm;
      expect(notJson).toMatchObject({ ok: false, code: 'SWB_ERR_VALIDATION' });
    } finally {
      await h.close();
    }
  });
});
