/**
 * Broadcast (spec §13, §3.5 `method`/`broadcast`/`group`; reference tests §20 items 32, 33).
 */
import { describe, expect, it } from 'vitest';
import {
  allEventsKey,
  anyProducerKey,
  broadcastVolatileEvent,
  ClientEvent,
  consumeEvent,
  Protocol,
  subscriptionKey,
} from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
  type Recorder,
  type Socket,
} from '../helpers/broker-harness';
import { loggedIn, startAuthBroker } from '../helpers/auth-clients';
import { consumerPayload, jsProducerPayload } from '../helpers/stock-clients';
import { collect, delay, QUIET_MS, waitFor, waitUntil } from '../helpers/wait';

const ctx = useBroker();

/** The five realm-broadcast events of §13.1, in order. */
function realmBroadcastEvents(producer: string, event: string): string[] {
  return [
    broadcastVolatileEvent(producer),
    consumeEvent(event),
    consumeEvent(subscriptionKey(producer, event)),
    consumeEvent(anyProducerKey(event)),
    consumeEvent(allEventsKey(producer)),
  ];
}

async function quiet(...sockets: Socket[]): Promise<void> {
  await sync(...sockets);
  await delay(QUIET_MS);
}

describe('realm broadcast (§13.1)', () => {
  it('sends every registered socket the envelope on the five events, in order', async () => {
    const producer = await ctx.h.producer('Fleet');
    const listener = await ctx.h.consumer('listener');
    // Let the connection go idle: the first emit is volatile and dropped if the transport is busy.
    await quiet(producer, listener);
    const rec = record(listener);
    const expected = realmBroadcastEvents('Fleet', 'News/Flash');
    const last = waitFor(listener, expected[4] ?? '');
    produce(producer, 'Fleet', 'News/Flash', { headline: 'hi' }, { broadcast: 'realm' });
    await last;
    await delay(QUIET_MS);
    expect(rec.names()).toEqual(expected);
    for (const r of rec.all) {
      expect(r.args[0]).toEqual({
        event: 'News/Flash',
        message: { headline: 'hi' },
        from: 'Fleet',
      });
    }
  });

  it('reaches an unsubscribed realm member on CONSUME-<E> (original case) where a plain produce does not (§20.32)', async () => {
    const producer = await ctx.h.producer('fleet');
    const member = await ctx.h.consumer('bystander');
    const rec = record(member);
    produce(producer, 'fleet', 'Alert', 'plain');
    await quiet(producer, member);
    expect(rec.names()).toEqual([]);

    const got = waitFor(member, consumeEvent('Alert'));
    produce(producer, 'fleet', 'Alert', 'everyone', { broadcast: 'realm' });
    expect(await got).toEqual({ event: 'Alert', message: 'everyone', from: 'fleet' });
  });

  it('gives a subscribed consumer the plain and the broadcast message once each, in order (§20.32)', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('sub');
    await subscribe(consumer, 'sub', 'fleet', 'alert');
    const rec = record(consumer);
    const got = collect<{ message: string }>(consumer, exactConsumeEvent('fleet', 'alert'), 2);
    produce(producer, 'fleet', 'alert', 'plain');
    produce(producer, 'fleet', 'alert', 'broadcast', { broadcast: 'realm' });
    expect((await got).map((e) => e.message)).toEqual(['plain', 'broadcast']);
    await quiet(producer, consumer);
    const onKey = rec.of(exactConsumeEvent('fleet', 'alert')) as { message: string }[];
    expect(onKey.map((e) => e.message)).toEqual(['plain', 'broadcast']);
  });

  it('§20.32: a realm broadcast does not reach sockets of another realm', async () => {
    const h = await startAuthBroker({ realms: { a: { required: false }, b: { required: false } } });
    try {
      const producer = await loggedIn(h, { realm: 'a', role: 'producer' });
      producer.emit(ClientEvent.PRODUCER, jsProducerPayload('fleet'));
      const same = await loggedIn(h, { realm: 'a', role: 'consumer' });
      same.emit(ClientEvent.CONSUMER, consumerPayload('member'));
      const other = await loggedIn(h, { realm: 'b', role: 'consumer' });
      other.emit(ClientEvent.CONSUMER, consumerPayload('member'));
      await quiet(producer, same, other);
      const rec = record(other);
      const got = waitFor(same, consumeEvent('Alert'));
      produce(producer, 'fleet', 'Alert', 'realm-a-only', { broadcast: 'realm' });
      expect(await got).toMatchObject({ message: 'realm-a-only' });
      await quiet(other);
      expect(rec.names()).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('includes the sender when it is registered, and skips sockets that never registered', async () => {
    const producer = await ctx.h.producer('fleet');
    const stranger = await ctx.h.connect();
    const strangerRec = record(stranger);
    const own = waitFor(producer, consumeEvent('hello'));
    produce(producer, 'fleet', 'hello', 1, { broadcast: 'realm' });
    expect(await own).toEqual({ event: 'hello', message: 1, from: 'fleet' });
    await quiet(stranger);
    expect(strangerRec.names()).toEqual([]);
  });

  it('counts sockets registered only through SUBSCRIBE or only through PRODUCE as realm members (§5.1, §3.5)', async () => {
    const sender = await ctx.h.producer('fleet');
    const subOnly = await ctx.h.connect();
    await subscribe(subOnly, 'sub-only', 'elsewhere', 'x');
    const prodOnly = await ctx.h.connect();
    produce(prodOnly, 'quiet-producer', 'warmup', 0); // binds the name silently
    await quiet(subOnly, prodOnly);
    const a = waitFor(subOnly, consumeEvent('Hear'));
    const b = waitFor(prodOnly, consumeEvent('Hear'));
    produce(sender, 'fleet', 'Hear', 'ye', { broadcast: 'realm' });
    expect(await a).toEqual({ event: 'Hear', message: 'ye', from: 'fleet' });
    expect(await b).toEqual({ event: 'Hear', message: 'ye', from: 'fleet' });
  });

  it('deduplicates by socket: a socket registered as producer and consumer gets one set of five', async () => {
    const sender = await ctx.h.producer('fleet');
    const both = await ctx.h.connect();
    both.emit(ClientEvent.PRODUCER, jsProducerPayload('relay'));
    both.emit(ClientEvent.CONSUMER, consumerPayload('relay-c'));
    await quiet(both, sender);
    const rec = record(both);
    const expected = realmBroadcastEvents('fleet', 'ping');
    produce(sender, 'fleet', 'ping', 1, { broadcast: 'realm' });
    await waitUntil(() => rec.names().includes(expected[4] ?? ''), 'the last broadcast event');
    await delay(QUIET_MS);
    expect(rec.names()).toEqual(expected);
  });

  it('carries enc, to and content_type, and never a msgId (§13, §8)', async () => {
    const producer = await ctx.h.producer('fleet');
    const member = await ctx.h.consumer('m');
    const got = waitFor(member, consumeEvent('note'));
    produce(producer, 'fleet', 'note', 'n', {
      broadcast: 'realm',
      enc: { kid: 'k1' },
      to: 'whoever',
      contentType: 'text/plain',
    });
    expect(await got).toEqual({
      event: 'note',
      message: 'n',
      from: 'fleet',
      enc: { kid: 'k1' },
      to: 'whoever',
      content_type: 'text/plain',
    });
  });

  it('does not use the topic index: a topic subscriber gets no copy on its pattern key (§13)', async () => {
    const producer = await ctx.h.producer('fleet');
    const consumer = await ctx.h.consumer('t');
    await subscribe(consumer, 't', Protocol.ALL_PUBLISHERS, 'news/#', { mode: 'topic' });
    const rec = record(consumer);
    const last = waitFor(consumer, consumeEvent(allEventsKey('fleet')));
    produce(producer, 'fleet', 'news/x', 1, { broadcast: 'realm' });
    await last;
    await delay(QUIET_MS);
    expect(rec.names()).not.toContain(consumeEvent(anyProducerKey('news/#')));
  });

  it('falls back to a realm broadcast for broadcast:"group" without a group (§13.2)', async () => {
    const producer = await ctx.h.producer('fleet');
    const member = await ctx.h.consumer('m');
    const got = waitFor(member, consumeEvent('fallback'));
    producer.emit(ClientEvent.PRODUCE, {
      event: 'fallback',
      message: 1,
      from: 'fleet',
      method: 'broadcast',
      broadcast: 'group',
    });
    expect(await got).toEqual({ event: 'fallback', message: 1, from: 'fleet' });
  });
});

describe('realm broadcast and wildcard subscribers (§13.1, Note 2.3-A)', () => {
  it('gives an all-events subscriber exactly one copy, on CONSUME-<lc(P)>-TM-ALL', async () => {
    const producer = await ctx.h.producer('Fleet');
    const consumer = await ctx.h.consumer('all');
    await subscribe(consumer, 'all', 'Fleet', Protocol.EVENT_ALL, { scope: Protocol.SCOPE_ALL });
    const anyone = await ctx.h.consumer('any');
    await subscribe(anyone, 'any', Protocol.ALL_PUBLISHERS, 'news');
    await quiet(consumer, anyone);
    const rec = record(consumer);
    const recAny = record(anyone);
    produce(producer, 'Fleet', 'news', 1, { broadcast: 'realm' });
    await waitUntil(() => rec.all.length >= 5 && recAny.all.length >= 5, 'both got the broadcast');
    await delay(QUIET_MS);
    expect(rec.names().filter((n) => n === consumeEvent(allEventsKey('Fleet')))).toHaveLength(1);
    expect(recAny.names().filter((n) => n === consumeEvent(anyProducerKey('news')))).toHaveLength(
      1,
    );
  });
});

describe('group broadcast (§13.2)', () => {
  async function groupMember(name: string, event: string, group?: string): Promise<Recorder> {
    const s = await ctx.h.consumer(name);
    await subscribe(s, name, 'fleet', event, group ? { group } : {});
    return record(s);
  }

  it('gives every group member one copy and an ungrouped subscriber of the same event none (§20.33)', async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await groupMember('a', 'rollout', 'workers');
    const b = await groupMember('b', 'rollout', 'workers');
    const ungrouped = await groupMember('u', 'rollout');
    const outsider = await groupMember('o', 'rollout', 'others');
    const event = exactConsumeEvent('fleet', 'rollout');
    produce(producer, 'fleet', 'rollout', 'v2', { broadcast: 'group', group: 'workers' });
    await waitUntil(
      () => a.of(event).length === 1 && b.of(event).length === 1,
      'both members got it',
    );
    await delay(QUIET_MS);
    const envelope = { event: 'rollout', message: 'v2', from: 'fleet' };
    expect(a.all).toEqual([{ event, args: [envelope] }]);
    expect(b.all).toEqual([{ event, args: [envelope] }]);
    expect(ungrouped.all).toEqual([]);
    expect(outsider.all).toEqual([]);
  });

  it("delivers on the member's own group subscription key even for another event (Note 13.2-A, keep)", async () => {
    const producer = await ctx.h.producer('fleet');
    const a = await groupMember('a', 'other', 'workers');
    const got = waitUntil(() => a.all.length === 1, 'one copy');
    produce(producer, 'fleet', 't1', 'x', { broadcast: 'group', group: 'workers' });
    await got;
    await delay(QUIET_MS);
    expect(a.all).toEqual([
      {
        event: exactConsumeEvent('fleet', 'other'),
        args: [{ event: 't1', message: 'x', from: 'fleet' }],
      },
    ]);
  });

  it('sends one copy per member name, on the key of its first group subscription', async () => {
    const producer = await ctx.h.producer('fleet');
    const s = await ctx.h.consumer('multi');
    await subscribe(s, 'multi', 'fleet', 'first', { group: 'workers' });
    await subscribe(s, 'multi', 'fleet', 'second', { group: 'workers' });
    const rec = record(s);
    produce(producer, 'fleet', 'go', 1, { broadcast: 'group', group: 'workers' });
    await waitUntil(() => rec.all.length >= 1, 'a copy');
    await delay(QUIET_MS);
    expect(rec.names()).toEqual([exactConsumeEvent('fleet', 'first')]);
  });

  it('skips offline members without failing the others', async () => {
    const producer = await ctx.h.producer('fleet');
    const gone = await ctx.h.consumer('gone');
    await subscribe(gone, 'gone', 'fleet', 'job', { group: 'workers' });
    gone.disconnect();
    await waitUntil(() => ctx.h.stats().consumers.online === 0, 'gone is offline');
    const here = await groupMember('here', 'job', 'workers');
    produce(producer, 'fleet', 'job', 1, { broadcast: 'group', group: 'workers' });
    await waitUntil(() => here.all.length === 1, 'the live member got it');
    await delay(QUIET_MS);
    expect(here.names()).toEqual([exactConsumeEvent('fleet', 'job')]);
  });
});
