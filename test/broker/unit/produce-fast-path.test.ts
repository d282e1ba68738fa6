/**
 * `producePayloadFast` (broker/handlers/produce-fast-path.ts) must never disagree with the
 * schema it short-cuts: whenever it vouches for a payload, `ProducePayload.safeParse` accepts
 * it and returns an object equal to it, key for key and in the same order (what the handler
 * and the wire see). Generated payloads mix valid and invalid values of every known field,
 * extra fields and shuffled key orders, as JSON decoding would produce them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { producePayloadFast } from '../../../broker/handlers/produce-fast-path';
import {
  MAX_EVENT_LENGTH,
  MAX_NAME_LENGTH,
  ProducePayload,
} from '../../../shared/protocol-payloads';

const json = fc.jsonValue({ maxDepth: 2 });
const nameLike = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constant('n'.repeat(MAX_NAME_LENGTH)),
  fc.constant('n'.repeat(MAX_NAME_LENGTH + 1)),
  fc.constant(null),
  fc.integer(),
);
const fields: Record<string, fc.Arbitrary<unknown>> = {
  event: fc.oneof(
    { arbitrary: fc.string({ minLength: 1, maxLength: 8 }), weight: 6 },
    fc.constant(''),
    fc.constant('e'.repeat(MAX_EVENT_LENGTH)),
    fc.constant('e'.repeat(MAX_EVENT_LENGTH + 1)),
    fc.record({ event: fc.string({ maxLength: 4 }) }),
    fc.integer(),
    fc.constant(null),
  ),
  message: json,
  from: nameLike,
  group: nameLike,
  ttl: fc.oneof(fc.integer(), fc.string({ maxLength: 70 }), fc.constant(null), fc.boolean()),
  lifespan: fc.oneof(fc.integer(), fc.constant(null)),
  method: json,
  id: json,
  extra: json,
  scope: json,
};

/** A payload with a random subset of the fields above, in a random key order. */
const payload = fc
  .tuple(
    fc
      .subarray(Object.keys(fields), { minLength: 0 })
      .map((ks) => ['event', ...ks.filter((k) => k !== 'event')]),
    fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
    fc.boolean(),
  )
  .chain(([keys, order, shuffle]) => {
    // Half the payloads keep the declaration order (event first, like the clients send).
    const shuffled = !shuffle
      ? keys
      : keys
          .map((k, i) => [k, order[i % order.length]! + i / 100] as const)
          .sort((a, b) => a[1] - b[1])
          .map(([k]) => k);
    return fc.tuple(...shuffled.map((k) => fields[k]!)).map((values) => {
      const o: Record<string, unknown> = {};
      shuffled.forEach((k, i) => (o[k] = values[i]));
      return o;
    });
  });

describe('producePayloadFast', () => {
  it('vouches only for payloads zod accepts unchanged, in the same key order', () => {
    let vouched = 0;
    fc.assert(
      fc.property(payload, (p) => {
        const fast = producePayloadFast(p);
        if (fast === null) return;
        vouched++;
        expect(fast).toBe(p);
        const parsed = ProducePayload.safeParse(p);
        expect(parsed.success).toBe(true);
        expect(Object.keys(parsed.data!)).toEqual(Object.keys(p));
        expect(JSON.stringify(parsed.data)).toBe(JSON.stringify(p));
      }),
      { numRuns: 5_000 },
    );
    // The property must not hold vacuously.
    expect(vouched).toBeGreaterThan(100);
  });

  it("takes the stock client's payload and leaves the rest to the schema", () => {
    const stock = { event: 'job', message: { n: 1 }, from: 'p1' };
    expect(producePayloadFast(stock)).toBe(stock);
    // Out of schema order: zod reorders, so the schema must run.
    expect(producePayloadFast({ message: 1, event: 'job' })).toBeNull();
    expect(producePayloadFast({ event: { event: 'job' } })).toBeNull();
    expect(producePayloadFast({ event: 'job', ttl: 5 })).toBeNull();
    expect(producePayloadFast({ event: '' })).toBeNull();
    expect(producePayloadFast(Object.assign(Object.create(null), { event: 'job' }))).toBeNull();
    expect(producePayloadFast('{"event":"job"}')).toBeNull();
  });
});
