/**
 * Large messages (spec §14, Note 14-A, §19; reference tests §20 items 11, 12, 42, 43).
 * Sizes are UTF-16 code units of the JSON text; chunk size 262,144.
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  consumeEvent,
  Protocol,
  ProtocolErrorCode,
  ServerEvent,
  type ConsumeChunkFrame,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
} from '../helpers/broker-harness';
import { bigPair, bigProduce, collectChunked, marked, sendChunked } from '../helpers/chunks';
import { asJsonString, chunkFrames } from '../helpers/stock-clients';
import { delay, expectNothing, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();
const KEY_EVENT = exactConsumeEvent('fleet', 'big');

const pair = () => bigPair(ctx.h);

function checkFrames(frames: ConsumeChunkFrame[], event: string, textLength: number): void {
  const total = Math.ceil(textLength / Protocol.CHUNK_SIZE);
  expect(frames).toHaveLength(total);
  const transferId = frames[0]?.transferId;
  expect(typeof transferId).toBe('string');
  frames.forEach((f, i) => {
    // §14.2: exactly {transferId, event, index, total, data}, emitted in order.
    expect(f).toEqual({ transferId, event, index: i, total, data: expect.any(String) });
    expect(f.data.length).toBe(
      i < total - 1 ? Protocol.CHUNK_SIZE : textLength - Protocol.CHUNK_SIZE * (total - 1),
    );
  });
}

describe('chunked delivery (§14.2)', () => {
  it('does not chunk an envelope of exactly 262,144 code units, and chunks one of 262,145', async () => {
    const { producer, consumer } = await pair();
    const overhead = JSON.stringify({ event: 'big', message: '', from: 'fleet' }).length;
    const exact = 'x'.repeat(Protocol.CHUNK_SIZE - overhead);
    const plain = waitFor<{ message: string }>(consumer, KEY_EVENT);
    const noFrames = expectNothing(consumer, ServerEvent.CONSUME_CHUNK, 1_000);
    produce(producer, 'fleet', 'big', exact);
    expect((await plain).message).toBe(exact);
    await noFrames;

    const over = `${exact}y`;
    const chunked = collectChunked<{ message: string }>(consumer, KEY_EVENT);
    const noPlain = expectNothing(consumer, KEY_EVENT, 1_000);
    produce(producer, 'fleet', 'big', over);
    const { frames, envelope } = await chunked;
    expect(envelope).toEqual({ event: 'big', message: over, from: 'fleet' });
    checkFrames(frames, KEY_EVENT, Protocol.CHUNK_SIZE + 1);
    await noPlain;
  });

  it('chunks a large plain PRODUCE on the way out: frames reassemble to the §8 envelope', async () => {
    const { producer, consumer } = await pair();
    const message = marked(600_000);
    const chunked = collectChunked(consumer, KEY_EVENT);
    produce(producer, 'fleet', 'big', message);
    const { frames, envelope } = await chunked;
    expect(envelope).toEqual({ event: 'big', message, from: 'fleet' });
    checkFrames(frames, KEY_EVENT, JSON.stringify(envelope).length);
  });

  it("chunks a large group broadcast on the member's key (§14.2)", async () => {
    const producer = await ctx.h.producer('fleet');
    const member = await ctx.h.consumer('m');
    await subscribe(member, 'm', 'fleet', 'big', { group: 'workers' });
    const message = marked(300 * 1024);
    const chunked = collectChunked(member, KEY_EVENT);
    produce(producer, 'fleet', 'big', message, { broadcast: 'group', group: 'workers' });
    expect((await chunked).envelope).toEqual({ event: 'big', message, from: 'fleet' });
  });

  it('delivers a large realm broadcast intact on CONSUME-<E>, chunked or not (§13.1, §14.2)', async () => {
    const producer = await ctx.h.producer('fleet');
    const member = await ctx.h.consumer('m');
    const message = marked(300 * 1024);
    const event = consumeEvent('Huge'); // §2.2: realm-broadcast raw event, E in original case
    const plain = waitFor(member, event, 10_000).then((envelope) => ({ envelope }));
    const chunked = collectChunked(member, event, 10_000);
    produce(producer, 'fleet', 'Huge', message, { broadcast: 'realm' });
    const first = await Promise.any([plain, chunked]);
    expect(first.envelope).toEqual({ event: 'Huge', message, from: 'fleet' });
  });

  it('uses a distinct transferId per delivery when one message matches two keys', async () => {
    const { producer, consumer } = await pair();
    await subscribe(consumer, 'worker', Protocol.ALL_PUBLISHERS, 'big');
    const frames: ConsumeChunkFrame[] = [];
    consumer.on(ServerEvent.CONSUME_CHUNK, (f: ConsumeChunkFrame) => frames.push(f));
    const message = marked(300 * 1024);
    produce(producer, 'fleet', 'big', message);
    await sync(producer);
    await delay(QUIET_MS * 2);
    const ids = [...new Set(frames.map((f) => f.transferId))];
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const parts = frames.filter((f) => f.transferId === id).sort((a, b) => a.index - b.index);
      expect(JSON.parse(parts.map((p) => p.data).join(''))).toMatchObject({ message });
    }
  });
});

describe('PRODUCE_CHUNK reassembly (§14.1)', () => {
  it('delivers a 300 KiB string intact, two chunks each way (§20.11)', async () => {
    const { producer, consumer } = await pair();
    const message = marked(300 * 1024);
    const chunked = collectChunked(consumer, KEY_EVENT);
    const sent = sendChunked(producer, bigProduce(message));
    expect(sent).toHaveLength(2);
    const { frames, envelope } = await chunked;
    expect(frames).toHaveLength(2);
    expect(envelope).toEqual({ event: 'big', message, from: 'fleet' });
  });

  it('delivers a 2 MiB string intact; first, middle and last characters checked (§20.12)', async () => {
    const { producer, consumer } = await pair();
    const n = 2 * 1024 * 1024;
    const message = marked(n);
    const chunked = collectChunked<{ message: string }>(consumer, KEY_EVENT, 30_000);
    sendChunked(producer, bigProduce(message));
    const got = (await chunked).envelope.message;
    expect(got.length).toBe(n);
    expect([got[0], got[Math.floor(n / 2)], got[n - 1]]).toEqual(['F', 'M', 'L']);
    expect(got === message).toBe(true);
  }, 60_000);

  it('reassembles chunks that arrive out of order', async () => {
    const { producer, consumer } = await pair();
    const message = marked(700_000); // 3 chunks
    const chunked = collectChunked(consumer, KEY_EVENT);
    sendChunked(producer, bigProduce(message), [2, 0, 1]);
    expect((await chunked).envelope).toEqual({ event: 'big', message, from: 'fleet' });
  });

  it('ignores a repeated index: no early completion, first copy kept (Note 14-A fix)', async () => {
    const { producer, consumer } = await pair();
    const message = marked(700_000);
    const frames = chunkFrames(bigProduce(message));
    expect(frames).toHaveLength(3);
    const [f0, f1, f2] = frames as [(typeof frames)[0], (typeof frames)[0], (typeof frames)[0]];
    const rec = record(consumer);
    producer.emit(ClientEvent.PRODUCE_CHUNK, f0);
    producer.emit(ClientEvent.PRODUCE_CHUNK, { ...f0, data: 'garbage that must be ignored' });
    producer.emit(ClientEvent.PRODUCE_CHUNK, f1);
    await sync(producer);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]); // the reference would complete (and fail) here
    const chunked = collectChunked(consumer, KEY_EVENT);
    producer.emit(ClientEvent.PRODUCE_CHUNK, f2);
    expect((await chunked).envelope).toEqual({ event: 'big', message, from: 'fleet' });
  });

  it('accepts PRODUCE_CHUNK frames given as JSON strings (§1.2)', async () => {
    const { producer, consumer } = await pair();
    const message = marked(300 * 1024);
    const chunked = collectChunked(consumer, KEY_EVENT);
    for (const f of chunkFrames(bigProduce(message)))
      producer.emit(ClientEvent.PRODUCE_CHUNK, asJsonString(f));
    expect((await chunked).envelope).toEqual({ event: 'big', message, from: 'fleet' });
  });

  it("reassembles per socket: a partial transfer is dropped on disconnect and never mixed with another socket's", async () => {
    const consumer = await ctx.h.consumer('worker');
    await subscribe(consumer, 'worker', 'fleet', 'big');
    const first = await ctx.h.producer('fleet');
    const a = chunkFrames(bigProduce(marked(300 * 1024)), Protocol.CHUNK_SIZE, 'shared-id');
    first.emit(ClientEvent.PRODUCE_CHUNK, a[0]);
    await sync(first);
    first.disconnect();

    const second = await ctx.h.producer('fleet');
    const otherMessage = marked(300 * 1024).toUpperCase();
    const b = chunkFrames(bigProduce(otherMessage), Protocol.CHUNK_SIZE, 'shared-id');
    const rec = record(consumer);
    second.emit(ClientEvent.PRODUCE_CHUNK, b[1]);
    await sync(second);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
    const chunked = collectChunked(consumer, KEY_EVENT);
    second.emit(ClientEvent.PRODUCE_CHUNK, b[0]);
    expect((await chunked).envelope).toEqual({
      event: 'big',
      message: otherMessage,
      from: 'fleet',
    });
  });

  it('drops a transfer whose joined text does not parse, and keeps serving', async () => {
    const { producer, consumer } = await pair();
    const rec = record(consumer);
    producer.emit(ClientEvent.PRODUCE_CHUNK, {
      transferId: 'bad-json',
      index: 0,
      total: 2,
      data: '{"event":"big",',
    });
    producer.emit(ClientEvent.PRODUCE_CHUNK, {
      transferId: 'bad-json',
      index: 1,
      total: 2,
      data: 'oops',
    });
    await sync(producer);
    await delay(QUIET_MS);
    expect(rec.names().filter((n) => n !== ServerEvent.ERROR)).toEqual([]);
    const ok = waitFor(consumer, KEY_EVENT);
    produce(producer, 'fleet', 'big', 'small');
    expect(await ok).toEqual({ event: 'big', message: 'small', from: 'fleet' });
  });

  it.each([
    ['index -1', { index: -1, total: 2 }],
    ['index = total', { index: 2, total: 2 }],
    ['fractional index', { index: 0.5, total: 2 }],
    ['string index', { index: '0', total: 2 }],
    ['total 0', { index: 0, total: 0 }],
    ['negative total', { index: 0, total: -3 }],
    ['fractional total', { index: 0, total: 1.5 }],
    ['string total', { index: 0, total: 'two' }],
    ['missing transferId', { index: 0, total: 2, transferId: undefined }],
    ['numeric transferId', { index: 0, total: 2, transferId: 42 }],
    ['non-string data', { index: 0, total: 2, data: 42 }],
  ])(
    'answers a chunk with %s with ERROR {message, code:-1} (§19, Note 14-A)',
    async (_label, bad) => {
      const { producer, consumer } = await pair();
      const rec = record(consumer);
      const error = waitFor(producer, ServerEvent.ERROR);
      producer.emit(ClientEvent.PRODUCE_CHUNK, { transferId: 'bad-frame', data: '{}', ...bad });
      expect(await error).toEqual({
        message: expect.any(String),
        code: ProtocolErrorCode.BAD_FIELD,
      });
      await delay(QUIET_MS);
      expect(rec.names()).toEqual([]);
    },
  );

  it('validates the reassembled PRODUCE like any other: no event → ERROR {message, code:-1} (§14.1 step 3, §19)', async () => {
    const { producer, consumer } = await pair();
    const rec = record(consumer);
    const error = waitFor(producer, ServerEvent.ERROR);
    sendChunked(producer, { message: marked(300 * 1024), from: 'fleet' });
    expect(await error).toEqual({ message: expect.any(String), code: ProtocolErrorCode.BAD_FIELD });
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
  });

  it('refuses an absurd total with an ERROR (-1, or -7 as a limit) and stays up (Note 14-A)', async () => {
    const { producer, consumer } = await pair();
    const error = waitFor<{ code: number }>(producer, ServerEvent.ERROR);
    producer.emit(ClientEvent.PRODUCE_CHUNK, {
      transferId: 'huge',
      index: 0,
      total: 2 ** 32,
      data: '{',
    });
    const e = await error;
    expect(e).toEqual({ message: expect.any(String), code: expect.any(Number) });
    expect([ProtocolErrorCode.BAD_FIELD, ProtocolErrorCode.LIMIT_EXCEEDED]).toContain(e.code);
    const ok = waitFor(consumer, KEY_EVENT);
    produce(producer, 'fleet', 'big', 'still alive');
    expect(await ok).toMatchObject({ message: 'still alive' });
  });
});

describe('PRODUCE_CHUNK total is fixed by the first chunk (Note 14-A)', () => {
  it('does not complete early when a later chunk claims a smaller total', async () => {
    const { producer, consumer } = await pair();
    const frames = chunkFrames(bigProduce(marked(700_000)));
    expect(frames).toHaveLength(3);
    const rec = record(consumer);
    producer.emit(ClientEvent.PRODUCE_CHUNK, frames[0]);
    producer.emit(ClientEvent.PRODUCE_CHUNK, { ...frames[1], total: 2 });
    await sync(producer);
    await delay(QUIET_MS);
    // Whether the lying frame is ignored or refused with ERROR is open; completing is not.
    expect(rec.names()).toEqual([]);
  });
});
