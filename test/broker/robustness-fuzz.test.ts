/**
 * §19: "The new broker must never crash on client input." 1,000 malformed payloads go to every
 * client event from one socket while an unrelated producer/consumer pair stays connected; then the
 * broker must still serve, the bystanders must have seen nothing, and nothing may have been
 * registered, subscribed or delivered by the garbage. The broker runs in this process, so an
 * uncaught exception would fail the run, and prototype pollution is directly observable.
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, ProtocolErrorText, ServerEvent } from '../../shared/protocol-events';
import {
  exactConsumeEvent,
  produce,
  record,
  subscribe,
  sync,
  useBroker,
} from '../helpers/broker-harness';
import { malformedCases } from '../helpers/fuzz';
import { consumerPayload } from '../helpers/stock-clients';
import { delay, QUIET_MS, waitFor } from '../helpers/wait';

const ctx = useBroker();

/**
 * Replies a malformed payload may legitimately get (§3.6, §4, §1.3 with auth disabled, and the
 * admin surface's failures, `spec/protocol-admin.md` §1).
 */
const ALLOWED_REPLIES: string[] = [
  ServerEvent.ERROR,
  ServerEvent.AUTH_OK,
  ServerEvent.AUTH_FAIL,
  ServerEvent.ACK_FAIL,
  ServerEvent.AUTHORIZATION_REQUEST_FAIL,
  ServerEvent.AUTHORIZATION_FAIL,
  ServerEvent.AUTH_MANAGEMENT_FAIL,
  // Every REMOTE_TICKET_REQUEST field is optional (§16.2): any payload may get a ticket.
  ServerEvent.REMOTE_TICKET,
  ServerEvent.REMOTE_TICKET_FAIL,
];

/** §4: an ERROR is `{message, code}` or one of the reference's bare strings. */
function isWellFormedError(payload: unknown): boolean {
  if (typeof payload === 'string') {
    return (
      payload === ProtocolErrorText.SUBSCRIBE_WITHOUT_EVENT ||
      payload === ProtocolErrorText.PRODUCER_NEWLY_JOINED
    );
  }
  if (typeof payload !== 'object' || payload === null) return false;
  const keys = Object.keys(payload).sort();
  const p = payload as { message?: unknown; code?: unknown };
  return (
    keys.join() === 'code,message' && typeof p.message === 'string' && typeof p.code === 'number'
  );
}

describe('robustness under malformed input (§19)', () => {
  it('survives 1,000 malformed payloads to every client event; bystanders are unaffected', async () => {
    const observerProducer = await ctx.h.producer('obs-producer');
    const observerConsumer = await ctx.h.consumer('obs-consumer');
    await subscribe(observerConsumer, 'obs-consumer', 'obs-producer', 'obs-event');
    const before = ctx.h.stats();
    const recProducer = record(observerProducer);
    const recConsumer = record(observerConsumer);

    const fuzzer = await ctx.h.connect();
    const recFuzzer = record(fuzzer);
    let disconnectReason: string | null = null;
    fuzzer.on('disconnect', (reason: string) => {
      disconnectReason = reason;
    });

    const cases = malformedCases(1_000);
    const events = new Set(cases.map((c) => c.event));
    expect([...events].sort()).toEqual(Object.values(ClientEvent).sort()); // every client event
    for (const [i, c] of cases.entries()) {
      fuzzer.emit(c.event, ...c.args);
      if (i % 50 === 49) await sync(fuzzer); // let the broker keep up; also a liveness probe
    }
    await sync(fuzzer);
    await delay(QUIET_MS);

    // Still up, and the fuzzing socket itself was not dropped.
    expect(disconnectReason).toBeNull();
    expect(fuzzer.connected).toBe(true);
    // No prototype pollution in the broker's process (which is this one).
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');

    // The garbage registered nothing and subscribed nothing.
    expect(ctx.h.stats()).toEqual(before);
    // Bystanders saw nothing at all.
    expect(recProducer.names()).toEqual([]);
    expect(recConsumer.names()).toEqual([]);
    // The fuzzer got only validation-style replies, and every ERROR is well formed.
    const unexpected = recFuzzer.names().filter((n) => !ALLOWED_REPLIES.includes(n));
    expect([...new Set(unexpected)]).toEqual([]);
    const errors = recFuzzer.of(ServerEvent.ERROR);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !isWellFormedError(e))).toEqual([]);

    // Normal pub/sub between the bystanders still works…
    const got = waitFor(observerConsumer, exactConsumeEvent('obs-producer', 'obs-event'));
    produce(observerProducer, 'obs-producer', 'obs-event', 'after the storm');
    expect(await got).toEqual({
      event: 'obs-event',
      message: 'after the storm',
      from: 'obs-producer',
    });

    // …and so does a brand-new pair, and the fuzzer itself once it behaves.
    const p2 = await ctx.h.producer('fresh-p');
    const c2 = await ctx.h.consumer('fresh-c');
    await subscribe(c2, 'fresh-c', 'fresh-p', 'e');
    const got2 = waitFor(c2, exactConsumeEvent('fresh-p', 'e'));
    produce(p2, 'fresh-p', 'e', 2);
    expect(await got2).toMatchObject({ message: 2 });

    fuzzer.emit(ClientEvent.CONSUMER, consumerPayload('reformed'));
    await subscribe(fuzzer, 'reformed', 'fresh-p', 'e');
    const got3 = waitFor(fuzzer, exactConsumeEvent('fresh-p', 'e'));
    produce(p2, 'fresh-p', 'e', 3);
    expect(await got3).toMatchObject({ message: 3 });
  }, 120_000);

  it('survives malformed input from many sockets at once', async () => {
    const observer = await ctx.h.consumer('obs');
    const producer = await ctx.h.producer('p');
    await subscribe(observer, 'obs', 'p', 'e');
    const sockets = await Promise.all(Array.from({ length: 8 }, () => ctx.h.connect()));
    const cases = malformedCases(400, 0xbeef);
    sockets.forEach((s, k) => {
      for (const c of cases.filter((_, i) => i % sockets.length === k)) s.emit(c.event, ...c.args);
    });
    await sync(...sockets);
    expect(sockets.every((s) => s.connected)).toBe(true);
    const got = waitFor(observer, exactConsumeEvent('p', 'e'));
    produce(producer, 'p', 'e', 'ok');
    expect(await got).toMatchObject({ message: 'ok' });
  }, 60_000);
});
