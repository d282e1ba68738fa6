/**
 * Work a socket handler starts after it returns (a replay read, a durable write, an ACK's
 * store call) ends in an answer to the sender when it fails — never in an unhandled rejection,
 * which ends a Node process (issue 8 item 1, spec §19). The store is made to misbehave in
 * place on a real broker.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import { produce, subscribe, sync, useBroker } from '../helpers/broker-harness';
import { waitFor } from '../helpers/wait';

const ctx = useBroker();

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('asynchronous handler failures (§19)', () => {
  it('answers ERROR when the replay started by SUBSCRIBE fails past its store read', async () => {
    const { h } = ctx;
    // A malformed row from the store makes the replay loop throw after its await.
    h.broker.store.dequeue = async () => [null as never];
    const c = await h.consumer('worker');
    const error = waitFor<{ message: string; code: number }>(c, ServerEvent.ERROR);
    await subscribe(c, 'worker', 'fleet', 'job', { durable: true });
    expect(await error).toEqual({
      message: `Internal error while handling ${ClientEvent.SUBSCRIBE}`,
      code: ProtocolErrorCode.BAD_FIELD,
    });
    expect(unhandled).toEqual([]);
    // Still serving.
    const reply = await c.timeout(1_000).emitWithAck(ClientEvent.PING, {});
    expect(JSON.parse(reply as string)).toMatchObject({ pong: expect.any(String) });
  });

  it('answers a publisher confirm when the durable write fails', async () => {
    const { h } = ctx;
    const c = await h.consumer('worker');
    await subscribe(c, 'worker', 'fleet', 'job', { durable: true, ack: true });
    const p = await h.producer('fleet');
    // A failing disk: the confirm says so, and the broker keeps routing.
    h.broker.store.enqueue = async () => {
      throw Object.assign(new Error('disk gone'), { code: 'EIO' });
    };
    const reply = (await p
      .timeout(2_000)
      .emitWithAck(ClientEvent.PRODUCE, { event: 'job', message: 1, from: 'fleet' })) as {
      ok: boolean;
    };
    expect(reply.ok).toBe(false);
    produce(p, 'fleet', 'job', 2);
    await sync(p, c);
    expect(unhandled).toEqual([]);
  });
});
