/**
 * Topic wildcards (spec §6.3, §7 step 5, §11 and the Switchboard decision in Note 11-A;
 * reference tests §20 items 27, 28, 29).
 *
 * Each case subscribes one pattern the way the stock clients do (`producer: "TYO-MQ-ALL"`,
 * `mode: "topic"`), produces a list of concrete topics, and checks that exactly the matching ones
 * arrive, once each, in order, on `CONSUME-lc("TYO-MQ-ALL-" + pattern)` with `event` = the topic.
 */
import { describe, expect, it } from 'vitest';
import {
  anyProducerKey,
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
} from '../helpers/broker-harness';
import { jsSubscribePayload } from '../helpers/stock-clients';
import { collect, delay, expectNothing, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();

interface TopicCase {
  pattern: string;
  why: string;
  match: string[];
  noMatch: string[];
}

const cases: TopicCase[] = [
  {
    pattern: '#',
    why: '§11: `#` alone matches every event; Note 11-A: but not `$`-prefixed first levels',
    match: ['a', 'a/b', 'A/B/C', '/', 'a/$x', 'x#'],
    noMatch: ['$SYS/x', '$SYS', '$foo/bar'],
  },
  {
    pattern: 'a/#',
    why: '§11: `#` runs before the length test, so `a/#` matches `a`, `a/`, `a/b`, `a/b/c`',
    match: ['a', 'a/', 'a/b', 'a/b/c', 'A/B'],
    noMatch: ['b', 'ab', 'b/a', 'ab/c'],
  },
  {
    pattern: 'a/+',
    why: '§11: `+` is exactly one level, which may be empty; exact string equality also matches',
    match: ['a/', 'a/b', 'A/B', 'a/+'],
    noMatch: ['a', 'a/b/c', 'b/a'],
  },
  {
    pattern: 'a/+/c',
    why: '§11: `a/+/c` matches `a//c`',
    match: ['a//c', 'a/b/c', 'A/X/C'],
    noMatch: ['a/c', 'a/b/c/d', 'a/b/d'],
  },
  {
    pattern: 'a//c',
    why: '§11: empty levels are ordinary levels (`a//c` has three)',
    match: ['a//c', 'A//C'],
    noMatch: ['a/c', 'a/b/c', 'a///c'],
  },
  {
    pattern: '+',
    why: '§11: `+` alone is one level; Note 11-A: not a `$` topic',
    match: ['abc', 'X'],
    noMatch: ['a/b', '/', '$SYS'],
  },
  {
    pattern: '+/+',
    why: '§11: two levels, either may be empty',
    match: ['/', 'a/', '/b', 'a/b'],
    noMatch: ['a', 'a/b/c', '$SYS/x'],
  },
  {
    pattern: 'a/+/',
    why: '§11: a trailing `/` adds an empty last level',
    match: ['a/b/', 'a//'],
    noMatch: ['a/b', 'a/b/c', 'a/'],
  },
  {
    pattern: 'a/#/b',
    why: '§11, Note 11-A: a non-final `#` matches only by exact (case-insensitive) string equality',
    match: ['a/#/b', 'A/#/B'],
    noMatch: ['a/x/b', 'a/x/y/b', 'a/b', 'a/#/c'],
  },
  {
    pattern: '#/b',
    why: '§11: a leading non-final `#` is not a wildcard either',
    match: ['#/b'],
    noMatch: ['a/b', 'x/y/b', 'b'],
  },
  {
    pattern: 'a+/b#',
    why: '§11: a wildcard character inside a level is literal',
    match: ['a+/b#', 'A+/B#'],
    noMatch: ['ax/b', 'a/b', 'ab/bc', 'a+/b'],
  },
  {
    pattern: 'Org/ACME/+/Cmd',
    why: '§11: case-insensitive (the pattern is lowercased at subscribe time)',
    match: ['org/acme/m1/cmd', 'ORG/Acme/M2/CMD'],
    noMatch: ['org/beta/m1/cmd', 'org/acme/cmd'],
  },
  {
    pattern: '$SYS/#',
    why: 'Note 11-A: a pattern whose first level is literally `$SYS` does match `$SYS/…`',
    match: ['$SYS/x', '$sys/y/z', '$SYS'],
    noMatch: ['SYS/x', 'x/$SYS'],
  },
  {
    pattern: '$SYS/+',
    why: 'Note 11-A: only a *leading* wildcard is kept away from `$` topics',
    match: ['$SYS/x'],
    noMatch: ['$SYS', '$SYS/x/y'],
  },
  {
    pattern: '+/x',
    why: 'Note 11-A: a leading `+` does not match a `$`-prefixed first level',
    match: ['a/x', '/x'],
    noMatch: ['$SYS/x', '$/x'],
  },
];

/** Interleaves matches and non-matches so ordering and filtering are both exercised. */
function interleave(c: TopicCase): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(c.match.length, c.noMatch.length); i++) {
    const n = c.noMatch[i];
    const m = c.match[i];
    if (n !== undefined) out.push(n);
    if (m !== undefined) out.push(m);
  }
  return out;
}

describe('topic matching table (§11, Note 11-A)', () => {
  it.each(cases)('pattern "$pattern" — $why', async (c) => {
    const producer = await ctx.h.producer('sensor');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', Protocol.ALL_PUBLISHERS, c.pattern, { mode: 'topic' });
    const event = consumeEvent(anyProducerKey(c.pattern));
    const rec = record(consumer);
    const got = collect<{ event: string; from: string }>(consumer, event, c.match.length);
    interleave(c).forEach((topic, i) => produce(producer, 'sensor', topic, i));
    const envelopes = await got;
    await sync(producer);
    await delay(QUIET_MS);
    expect(envelopes.map((e) => e.event)).toEqual(c.match);
    expect(envelopes.every((e) => e.from === 'sensor')).toBe(true);
    // Exactly once each, and nothing on any other event.
    expect(rec.names()).toEqual(c.match.map(() => event));
  });
});

describe('reference topic behaviours (§20.27–29)', () => {
  it('org/acme/machine/+/cmd gets m-01 and m-02 in order with the concrete topic, not another leaf or a deeper path (§20.27)', async () => {
    const producer = await ctx.h.producer('plant');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', Protocol.ALL_PUBLISHERS, 'org/acme/machine/+/cmd', {
      mode: 'topic',
    });
    const event = consumeEvent(anyProducerKey('org/acme/machine/+/cmd'));
    const got = collect(consumer, event, 2);
    produce(producer, 'plant', 'org/acme/machine/m-01/cmd', 'restart');
    produce(producer, 'plant', 'org/acme/machine/m-01/status', 'no');
    produce(producer, 'plant', 'org/acme/machine/m-01/cmd/extra', 'no');
    produce(producer, 'plant', 'org/acme/machine/m-02/cmd', 'stop');
    expect(await got).toEqual([
      { event: 'org/acme/machine/m-01/cmd', message: 'restart', from: 'plant' },
      { event: 'org/acme/machine/m-02/cmd', message: 'stop', from: 'plant' },
    ]);
    await expectNothing(consumer, event);
  });

  it('org/acme/# gets org/acme/alert and a deep path, not org/beta/alert (§20.28)', async () => {
    const producer = await ctx.h.producer('plant');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', Protocol.ALL_PUBLISHERS, 'org/acme/#', { mode: 'topic' });
    const event = consumeEvent(anyProducerKey('org/acme/#'));
    const got = collect<{ event: string }>(consumer, event, 2);
    produce(producer, 'plant', 'org/beta/alert', 0);
    produce(producer, 'plant', 'org/acme/alert', 1);
    produce(producer, 'plant', 'org/acme/machine/m-01/cmd', 2);
    expect((await got).map((e) => e.event)).toEqual([
      'org/acme/alert',
      'org/acme/machine/m-01/cmd',
    ]);
    await expectNothing(consumer, event);
  });

  it('a legacy producer/event subscription and a topic subscription each get one copy (§20.29)', async () => {
    const producer = await ctx.h.producer('plant');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', 'plant', 'org/acme/alert');
    await subscribe(consumer, 'w', Protocol.ALL_PUBLISHERS, 'org/acme/#', { mode: 'topic' });
    const rec = record(consumer);
    const legacy = waitFor(consumer, exactConsumeEvent('plant', 'org/acme/alert'));
    const topic = waitFor(consumer, consumeEvent(anyProducerKey('org/acme/#')));
    produce(producer, 'plant', 'org/acme/alert', 'fire');
    const envelope = { event: 'org/acme/alert', message: 'fire', from: 'plant' };
    expect(await legacy).toEqual(envelope);
    expect(await topic).toEqual(envelope);
    await delay(QUIET_MS);
    expect(rec.names()).toHaveLength(2);
  });
});

describe('topic subscriptions and producers (§6.3)', () => {
  it('ignores the producer named in a topic subscription (verified reference behaviour)', async () => {
    const producer = await ctx.h.producer('Prod1');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', 'SomeoneElse', 'jobs/+', { mode: 'topic' });
    const got = waitFor(consumer, consumeEvent(subscriptionKey('SomeoneElse', 'jobs/+')));
    produce(producer, 'Prod1', 'jobs/42', 'x');
    expect(await got).toEqual({ event: 'jobs/42', message: 'x', from: 'Prod1' });
  });

  it('matches topics from every producer', async () => {
    const p1 = await ctx.h.producer('one');
    const p2 = await ctx.h.producer('two');
    const consumer = await ctx.h.consumer('w');
    await subscribe(consumer, 'w', Protocol.ALL_PUBLISHERS, 'jobs/#', { mode: 'topic' });
    const got = collect<{ from: string }>(consumer, consumeEvent(anyProducerKey('jobs/#')), 2);
    produce(p1, 'one', 'jobs/a', 1);
    await sync(p1);
    produce(p2, 'two', 'jobs/b', 2);
    expect((await got).map((e) => e.from)).toEqual(['one', 'two']);
  });

  it('treats any mode other than "topic" as no mode: wildcards are then literal (§3.3)', async () => {
    const producer = await ctx.h.producer('p');
    const consumer = await ctx.h.consumer('w');
    consumer.emit(ClientEvent.SUBSCRIBE, {
      ...jsSubscribePayload('w', Protocol.ALL_PUBLISHERS, 'jobs/+'),
      mode: 'wildcard',
    });
    await sync(consumer);
    const event = consumeEvent(anyProducerKey('jobs/+'));
    const got = collect<{ event: string }>(consumer, event, 1);
    produce(producer, 'p', 'jobs/1', 'not a topic match');
    produce(producer, 'p', 'jobs/+', 'exact');
    expect((await got).map((e) => e.event)).toEqual(['jobs/+']);
    await expectNothing(consumer, event);
  });
});
