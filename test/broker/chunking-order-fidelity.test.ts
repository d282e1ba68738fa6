/**
 * Chunked transfers: ordering against neighbouring deliveries and payload fidelity (spec §14,
 * Note 7-C, Note 14-A; reference tests §20 items 42, 43).
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  Protocol,
  ServerEvent,
  type ConsumeChunkFrame,
} from '../../shared/protocol-events';
import { exactConsumeEvent, produce, record, sync, useBroker } from '../helpers/broker-harness';
import { bigPair, bigProduce, collectChunked, marked, sendChunked } from '../helpers/chunks';
import { chunkFrames } from '../helpers/stock-clients';
import { delay, QUIET_MS, waitUntil } from '../helpers/wait';

const ctx = useBroker();
const KEY_EVENT = exactConsumeEvent('fleet', 'big');

const pair = () => bigPair(ctx.h);

describe('ordering with chunked transfers (§14.1, §14.2, Note 7-C)', () => {
  it('keeps a chunked delivery in order with its neighbours; its frames are back to back', async () => {
    const { producer, consumer } = await pair();
    const rec = record(consumer);
    const big = marked(300 * 1024);
    produce(producer, 'fleet', 'big', 'first');
    produce(producer, 'fleet', 'big', big);
    produce(producer, 'fleet', 'big', 'third');
    await waitUntil(() => rec.all.length >= 4, 'four events');
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([
      KEY_EVENT,
      ServerEvent.CONSUME_CHUNK,
      ServerEvent.CONSUME_CHUNK,
      KEY_EVENT,
    ]);
    expect(rec.of(KEY_EVENT).map((e) => (e as { message: string }).message)).toEqual([
      'first',
      'third',
    ]);
  });

  it('processes a chunked PRODUCE before a small PRODUCE sent after its last chunk', async () => {
    const { producer, consumer } = await pair();
    const rec = record(consumer);
    const big = marked(300 * 1024);
    const chunked = collectChunked(consumer, KEY_EVENT);
    sendChunked(producer, bigProduce(big));
    produce(producer, 'fleet', 'big', 'after');
    await chunked;
    await sync(producer);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([ServerEvent.CONSUME_CHUNK, ServerEvent.CONSUME_CHUNK, KEY_EVENT]);
  });

  it('reassembles two transfers interleaved on one socket', async () => {
    const { producer, consumer } = await pair();
    const m1 = marked(300 * 1024);
    const m2 = m1.toUpperCase();
    const f1 = chunkFrames(bigProduce(m1), Protocol.CHUNK_SIZE, 't-one');
    const f2 = chunkFrames(bigProduce(m2), Protocol.CHUNK_SIZE, 't-two');
    const got: string[] = [];
    const done = new Promise<void>((resolve) => {
      const parts = new Map<string, string[]>();
      consumer.on(ServerEvent.CONSUME_CHUNK, (f: ConsumeChunkFrame) => {
        const p = parts.get(f.transferId) ?? [];
        p[f.index] = f.data;
        parts.set(f.transferId, p);
        if (p.filter((x) => x !== undefined).length === f.total) {
          got.push((JSON.parse(p.join('')) as { message: string }).message);
          if (got.length === 2) resolve();
        }
      });
    });
    for (const f of [f1[0], f2[0], f2[1], f1[1]]) producer.emit(ClientEvent.PRODUCE_CHUNK, f);
    await done;
    expect(got).toEqual([m2, m1]); // each completes when its own last chunk arrives
  });
});

describe('payload fidelity across chunks (§14, §20.42, §20.43)', () => {
  it('keeps a surrogate pair split across a chunk boundary, both ways (Note 14-A)', async () => {
    const { producer, consumer } = await pair();
    // Pad so that code unit 262,143 of the PRODUCE text is a high surrogate: the first slice ends
    // mid-pair. With the envelope's keys in the same order the outgoing split lands there too.
    const emoji = '😀'.repeat(140_000);
    let message = emoji;
    for (const pad of ['', 'x']) {
      const candidate = pad + emoji;
      const code = JSON.stringify(bigProduce(candidate)).charCodeAt(Protocol.CHUNK_SIZE - 1);
      if (code >= 0xd800 && code <= 0xdbff) message = candidate;
    }
    const frames = chunkFrames(bigProduce(message));
    const cut = frames[0]?.data.charCodeAt(Protocol.CHUNK_SIZE - 1) ?? 0;
    expect(cut >= 0xd800 && cut <= 0xdbff).toBe(true); // the split really is inside a pair
    const chunked = collectChunked<{ message: string }>(consumer, KEY_EVENT);
    for (const f of frames) producer.emit(ClientEvent.PRODUCE_CHUNK, f);
    const got = (await chunked).envelope.message;
    expect(got.length).toBe(message.length);
    expect(got === message).toBe(true);
  });

  it('delivers a JSON-string payload over 256 KiB intact (§20.42)', async () => {
    const { producer, consumer } = await pair();
    const symbols = Array.from({ length: 6_000 }, (_, i) => ({
      symbol: `SYM${i}`,
      bid: i / 7,
      ask: i / 3,
    }));
    const text = JSON.stringify(symbols);
    expect(text.length).toBeGreaterThan(256 * 1024);
    const chunked = collectChunked<{ message: string }>(consumer, KEY_EVENT);
    sendChunked(producer, bigProduce(text));
    const got = (await chunked).envelope.message;
    expect(got).toBe(text);
    expect(JSON.parse(got)).toHaveLength(symbols.length);
  });

  it('delivers a payload over 256 KiB full of quotes and backslashes intact (§20.43)', async () => {
    const { producer, consumer } = await pair();
    const message = '"quoted" \\ back\\slash \\" mixed "\\\\" '.repeat(12_000);
    expect(message.length).toBeGreaterThan(256 * 1024);
    const chunked = collectChunked<{ message: string }>(consumer, KEY_EVENT);
    sendChunked(producer, bigProduce(message));
    expect((await chunked).envelope.message === message).toBe(true);
  });
});
