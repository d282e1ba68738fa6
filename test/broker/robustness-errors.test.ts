/**
 * Targeted validation replies (spec §1.2, §3.1–§3.3, §4, §19): which malformed events get which
 * `ERROR`, which are dropped silently, and that a dropped event has no side effect.
 */
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  consumeEvent,
  anyProducerKey,
  Protocol,
  ProtocolErrorCode,
  ProtocolErrorText,
  ServerEvent,
  subscribeToEvent,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
} from '../helpers/broker-harness';
import { jsSubscribePayload } from '../helpers/stock-clients';
import { delay, expectNothing, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();

const BAD_NAMES: [string, unknown][] = [
  ['a number', 42],
  ['null', null],
  ['an object', { first: 'x' }],
  ['an array', ['x']],
  ['a boolean', true],
  ['missing', undefined],
];

describe('CONSUMER / PRODUCER with a bad name (§3.1, §3.2, §4)', () => {
  it.each(BAD_NAMES)(
    'CONSUMER name %s → ERROR {message:"Incorrect consumer\'s name", code:-1}',
    async (_l, name) => {
      const s = await ctx.h.connect();
      const error = waitFor(s, ServerEvent.ERROR);
      s.emit(ClientEvent.CONSUMER, { name, id: 'x', consumer_id: 'x' });
      expect(await error).toEqual({
        message: ProtocolErrorText.BAD_CONSUMER_NAME,
        code: ProtocolErrorCode.BAD_FIELD,
      });
      expect(ctx.h.stats().consumers.total).toBe(0);
      expect(s.connected).toBe(true);
    },
  );

  it.each(BAD_NAMES)(
    'PRODUCER name %s → ERROR {message:"Incorrect producer\'s name", code:-1}',
    async (_l, name) => {
      const s = await ctx.h.connect();
      const error = waitFor(s, ServerEvent.ERROR);
      s.emit(ClientEvent.PRODUCER, { name });
      expect(await error).toEqual({
        message: ProtocolErrorText.BAD_PRODUCER_NAME,
        code: ProtocolErrorCode.BAD_FIELD,
      });
      expect(ctx.h.stats().producers.total).toBe(0);
    },
  );

  it.each([
    [ClientEvent.CONSUMER, null],
    [ClientEvent.CONSUMER, undefined],
    [ClientEvent.PRODUCER, null],
    [ClientEvent.PRODUCER, 17],
  ])('%s with payload %s → ERROR code -1 (§19 crash triggers)', async (event, payload) => {
    const s = await ctx.h.connect();
    const error = waitFor(s, ServerEvent.ERROR);
    if (payload === undefined) s.emit(event);
    else s.emit(event, payload);
    expect(await error).toEqual({ message: expect.any(String), code: ProtocolErrorCode.BAD_FIELD });
  });
});

describe('SUBSCRIBE validation (§3.3, §19)', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['null', null],
  ])(
    'event %s → the bare string "Message name should be a object", and nothing else happens',
    async (_l, event) => {
      const producer = await ctx.h.producer('fleet');
      const s = await ctx.h.connect();
      const error = waitFor(s, ServerEvent.ERROR);
      const noNotice = expectNothing(producer, subscribeToEvent(producer.id ?? ''));
      s.emit(ClientEvent.SUBSCRIBE, { ...jsSubscribePayload('c', 'fleet', 'x'), event });
      expect(await error).toBe(ProtocolErrorText.SUBSCRIBE_WITHOUT_EVENT);
      await noNotice;
      expect(ctx.h.stats().consumers.total).toBe(0); // §6.4: validation precedes registration
    },
  );

  it('answers a JSON-string SUBSCRIBE that parses but has no event with the same bare string (§1.2)', async () => {
    const s = await ctx.h.connect();
    const error = waitFor(s, ServerEvent.ERROR);
    s.emit(ClientEvent.SUBSCRIBE, JSON.stringify({ producer: 'fleet', consumer: 'c' }));
    expect(await error).toBe(ProtocolErrorText.SUBSCRIBE_WITHOUT_EVENT);
  });

  it.each([
    ['a numeric event', { event: 5 }],
    ['an array event', { event: ['job'] }],
    ['an object event without a string .event', { event: { event: 5 } }],
    ['a numeric producer', { producer: 42 }],
    ['an object consumer', { consumer: {} }],
  ])('%s → ERROR {message, code:-1} and no subscription', async (_l, patch) => {
    const producer = await ctx.h.producer('fleet');
    const s = await ctx.h.connect();
    const error = waitFor(s, ServerEvent.ERROR);
    s.emit(ClientEvent.SUBSCRIBE, { ...jsSubscribePayload('c', 'fleet', 'job'), ...patch });
    expect(await error).toEqual({ message: expect.any(String), code: ProtocolErrorCode.BAD_FIELD });
    const nothing = expectNothing(s, exactConsumeEvent('fleet', 'job'));
    produce(producer, 'fleet', 'job', 1);
    await nothing;
    expect(ctx.h.stats().consumers.total).toBe(0);
  });

  it('answers a null SUBSCRIBE payload with an ERROR (bare string of §3.3 or {message, code:-1} of §19)', async () => {
    const s = await ctx.h.connect();
    const error = waitFor(s, ServerEvent.ERROR);
    s.emit(ClientEvent.SUBSCRIBE, null);
    const e = await error;
    // Ambiguous: §3.3 covers a missing event, §19 a null payload. Either reply is acceptable.
    const ok =
      e === ProtocolErrorText.SUBSCRIBE_WITHOUT_EVENT ||
      (typeof e === 'object' &&
        e !== null &&
        (e as { code?: unknown }).code === ProtocolErrorCode.BAD_FIELD);
    expect(ok, JSON.stringify(e)).toBe(true);
  });
});

describe('PRODUCE validation (§19)', () => {
  it.each([
    ['no event', { message: 'm', from: 'fleet' }],
    ['an empty event', { event: '', message: 'm', from: 'fleet' }],
    ['a numeric event', { event: 42, message: 'm', from: 'fleet' }],
    ['an array event', { event: ['job'], message: 'm', from: 'fleet' }],
    ['an object event without .event', { event: {}, message: 'm', from: 'fleet' }],
    ['an object event with a numeric .event', { event: { event: 5 }, message: 'm', from: 'fleet' }],
    ['a numeric from', { event: 'job', message: 'm', from: 42 }],
    ['an object from', { event: 'job', message: 'm', from: {} }],
    ['a null payload', null],
    ['a number payload', 7],
  ])(
    '%s → ERROR {message, code:-1}, no delivery, no silent producer binding',
    async (_l, payload) => {
      const watcher = await ctx.h.consumer('watcher');
      await subscribe(watcher, 'watcher', Protocol.ALL_PUBLISHERS, '#', { mode: 'topic' });
      await subscribe(watcher, 'watcher', Protocol.ALL_PUBLISHERS, 'job');
      const rec = record(watcher);
      const before = ctx.h.stats();
      const s = await ctx.h.connect();
      const error = waitFor(s, ServerEvent.ERROR);
      s.emit(ClientEvent.PRODUCE, payload);
      expect(await error).toEqual({
        message: expect.any(String),
        code: ProtocolErrorCode.BAD_FIELD,
      });
      await sync(s);
      await delay(QUIET_MS);
      expect(rec.names()).toEqual([]);
      expect(ctx.h.stats()).toEqual(before);
    },
  );

  it('answers a PRODUCE with no argument at all with ERROR code -1', async () => {
    const s = await ctx.h.connect();
    const error = waitFor(s, ServerEvent.ERROR);
    s.emit(ClientEvent.PRODUCE);
    expect(await error).toEqual({ message: expect.any(String), code: ProtocolErrorCode.BAD_FIELD });
  });
});

describe('JSON strings that do not parse are dropped with no reply (§1.2)', () => {
  it.each([
    ClientEvent.CONSUMER,
    ClientEvent.PRODUCER,
    ClientEvent.SUBSCRIBE,
    ClientEvent.PRODUCE,
    ClientEvent.PRODUCE_CHUNK,
  ])('%s', async (event) => {
    const watcher = await ctx.h.consumer('watcher');
    await subscribe(watcher, 'watcher', Protocol.ALL_PUBLISHERS, '#', { mode: 'topic' });
    const recWatcher = record(watcher);
    const before = ctx.h.stats();
    const s = await ctx.h.connect();
    const rec = record(s);
    s.emit(event, '{"event":"job","message":');
    await sync(s);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([]);
    expect(recWatcher.names()).toEqual([]);
    expect(ctx.h.stats()).toEqual(before);
    expect(s.connected).toBe(true);
  });
});

describe('unusual but valid names (§19: names are strings; registries must not be plain objects)', () => {
  it('routes producer "__proto__", consumer "constructor", event "hasOwnProperty", group "toString"', async () => {
    const producer = await ctx.h.producer('__proto__');
    const consumer = await ctx.h.consumer('constructor');
    await subscribe(consumer, 'constructor', '__proto__', 'hasOwnProperty', { group: 'toString' });
    const other = await ctx.h.consumer('valueOf');
    await subscribe(other, 'valueOf', Protocol.ALL_PUBLISHERS, '__proto__/#', { mode: 'topic' });
    expect(ctx.h.stats().producers).toEqual({ total: 1, online: 1 });
    expect(ctx.h.stats().consumers).toEqual({ total: 2, online: 2 });

    const got = waitFor(consumer, exactConsumeEvent('__proto__', 'hasOwnProperty'));
    const topic = waitFor(other, consumeEvent(anyProducerKey('__proto__/#')));
    produce(producer, '__proto__', 'hasOwnProperty', 'a');
    produce(producer, '__proto__', '__proto__/x', 'b');
    expect(await got).toEqual({ event: 'hasOwnProperty', message: 'a', from: '__proto__' });
    expect(await topic).toEqual({ event: '__proto__/x', message: 'b', from: '__proto__' });
    expect(({} as Record<string, unknown>).hasOwnProperty).toBe(Object.prototype.hasOwnProperty);
  });

  it('does not confuse an unknown consumer name with an inherited property on duplicate detection', async () => {
    const s = await ctx.h.connect();
    const rec = record(s);
    s.emit(ClientEvent.CONSUMER, { name: 'toString', id: 'toString', consumer_id: 'toString' });
    await sync(s);
    await delay(QUIET_MS);
    expect(rec.of(ServerEvent.ERROR)).toEqual([]);
    expect(s.connected).toBe(true);
  });
});

describe('events outside the protocol', () => {
  // Issue 19 ("no silent calls"): answered with ERROR code -1 naming the event, nothing else.
  it('answers unknown event names with ERROR code -1 and keeps serving', async () => {
    const s = await ctx.h.connect();
    const rec = record(s);
    s.emit('NOT-A-PROTOCOL-EVENT', { x: 1 });
    s.emit('constructor', {});
    s.emit('__proto__', {});
    await sync(s);
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([ServerEvent.ERROR, ServerEvent.ERROR, ServerEvent.ERROR]);
    expect(rec.of(ServerEvent.ERROR)).toEqual(
      ['NOT-A-PROTOCOL-EVENT', 'constructor', '__proto__'].map((name) => ({
        message: `Unknown event '${name}': not handled by this broker`,
        code: ProtocolErrorCode.BAD_FIELD,
      })),
    );
    expect(s.connected).toBe(true);
  });
});
