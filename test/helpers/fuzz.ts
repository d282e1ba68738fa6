/**
 * Deterministic generator of malformed client payloads for the §19 robustness test.
 *
 * Every payload produced for an event is *invalid for that event* (a bad `event`, a non-string
 * name, a broken chunk frame, a non-object…), so a correct broker drops all of them: nothing gets
 * registered, subscribed, produced or delivered. Generic shapes (null, numbers, arrays, invalid
 * JSON text, deep nesting, oversized objects, `__proto__` keys, binary) go to every event.
 * The fast-check protocol fuzzer (`protocol-fuzz/`) draws from the same value lists.
 */
import { ClientEvent, type ClientEventName } from '../../shared/protocol-events';

/** mulberry32: small, seeded, good enough to pick cases reproducibly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One emit: the event and its arguments (possibly none; the last may be an ack function). */
export interface FuzzCase {
  event: string;
  args: unknown[];
  label: string;
}

function nested(depth: number, leaf: unknown, asArray: boolean): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { n: v };
  return v;
}

function wideObject(keys: number): Record<string, number> {
  const o: Record<string, number> = {};
  for (let i = 0; i < keys; i++) o[`k${i}`] = i;
  return o;
}

/** Values that are never a valid string/name/event. */
export const NOT_A_STRING: unknown[] = [
  null,
  0,
  42,
  -1,
  1.5,
  true,
  false,
  [],
  ['a'],
  {},
  { event: 5 },
  { toString: 'x' },
];

/** `event` values that fail §19's check ("a non-empty string, or an object with a string .event"). */
const BAD_EVENTS: unknown[] = [...NOT_A_STRING, '', { event: null }, { event: {} }, [['job']]];

/** Invalid or wrongly-shaped JSON text. */
export const BAD_JSON_TEXT: string[] = [
  '',
  '{',
  '{"event":',
  '[1,2',
  'undefined',
  'NaN',
  "{'event':'single quotes'}",
  '{"event":"x",}',
  '\u0000\u0001',
  '{"a":1}{"b":2}',
];

/** JSON text that parses but has the wrong shape. */
export const WRONG_JSON_TEXT: string[] = [
  'null',
  '42',
  '"just a string"',
  '[]',
  '[{"event":"x"}]',
  '{"event":7}',
  '{"event":""}',
  '{"name":{"first":"x"}}',
  '{"__proto__":{"polluted":"yes"},"event":5}',
  '{"constructor":{"prototype":{"polluted":"yes"}},"event":null}',
];

/** Objects whose own keys include `__proto__`/`constructor`/`prototype` (what JSON.parse yields). */
export function protoKeyObjects(): unknown[] {
  return [
    JSON.parse('{"__proto__":{"polluted":"yes"}}'),
    JSON.parse('{"__proto__":{"polluted":"yes"},"event":5,"name":7}'),
    JSON.parse('{"constructor":{"prototype":{"polluted":"yes"}},"name":[]}'),
    JSON.parse('{"prototype":{"polluted":"yes"},"event":{}}'),
    JSON.parse('{"options":{"__proto__":{"polluted":"yes"}},"event":0}'),
    JSON.parse('{"retry":{"__proto__":{"polluted":"yes"}},"event":false}'),
  ];
}

/** Generic malformed payloads for any event. */
function generic(rand: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  switch (Math.floor(rand() * 10)) {
    case 0:
      return pick(NOT_A_STRING);
    case 1:
      return pick(BAD_JSON_TEXT);
    case 2:
      return pick(WRONG_JSON_TEXT);
    case 3:
      return [pick(NOT_A_STRING), pick(BAD_JSON_TEXT), [[[]]]];
    case 4:
      return nested(200 + Math.floor(rand() * 1_800), 'leaf', rand() < 0.5);
    case 5:
      return pick(protoKeyObjects());
    case 6:
      return Buffer.from([0, 1, 2, 3, 255]);
    case 7:
      return { event: pick(BAD_EVENTS), message: nested(50, 1, true), from: pick(NOT_A_STRING) };
    case 8:
      return Number.MAX_SAFE_INTEGER;
    default:
      return pick([-0, 1e308, -1e308, Number.MIN_VALUE]);
  }
}

/** An event-specific payload that is invalid for `event`. */
function specific(event: ClientEventName, rand: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  switch (event) {
    case ClientEvent.CONSUMER:
    case ClientEvent.PRODUCER:
      return { name: pick(NOT_A_STRING), id: pick(NOT_A_STRING), consumer_id: pick(NOT_A_STRING) };
    case ClientEvent.SUBSCRIBE:
      return {
        event: pick(BAD_EVENTS),
        producer: pick(['fuzz-p', 42, {}, null]),
        consumer: pick(['fuzz-c', [], 7]),
        group: pick([null, 5, {}]),
        retry: pick([null, 'x', { max_attempts: 'many' }]),
        mode: pick(['topic', 1, null]),
      };
    case ClientEvent.PRODUCE:
      return rand() < 0.5
        ? { event: pick(BAD_EVENTS), message: 'm', from: 'fuzz-p', method: pick(['broadcast', 3]) }
        : { event: 'fuzz-event', message: 'm', from: pick(NOT_A_STRING.filter((v) => v !== null)) };
    case ClientEvent.PRODUCE_CHUNK:
      return pick([
        { transferId: 'fz', index: -1, total: 2, data: '{' },
        { transferId: 'fz', index: 0, total: 2 ** 32, data: '{' },
        { transferId: 'fz', index: 0, total: Number.MAX_SAFE_INTEGER, data: '{' },
        { transferId: 'fz', index: 3, total: 2, data: '{' },
        { transferId: 'fz', index: 'x', total: 2, data: '{' },
        { transferId: 'fz', index: 0, total: -5, data: '{' },
        { transferId: 'fz', index: 0, total: 1e300, data: '{' },
        { transferId: {}, index: 0, total: 2, data: '{' },
        { transferId: 'fz', index: 0, total: 2, data: { not: 'a string' } },
        { transferId: 'fz', index: 0, total: NaN, data: '' },
      ]);
    case ClientEvent.ACK:
      return pick([{}, { msgId: 5 }, { msg_id: null }, { id: [] }, { msgId: {} }]);
    case ClientEvent.UNSUBSCRIBE:
      return pick([{ event: 5, producer: {} }, 42, [], { event: null }]);
    default:
      return generic(rand);
  }
}

/**
 * `count` malformed emits spread over every client event, deterministic for `seed`. A few carry a
 * function ack, a few a non-function where an ack would go, a few no argument at all, and a few are
 * oversized (a 1 MB string field, a 20,000-key object, a 50,000-element array).
 */
export function malformedCases(count: number, seed = 0x5eed): FuzzCase[] {
  const rand = prng(seed);
  const events = Object.values(ClientEvent);
  const out: FuzzCase[] = [];
  for (let i = 0; i < count; i++) {
    const event = events[i % events.length] as ClientEventName;
    const roll = rand();
    let args: unknown[];
    let label: string;
    if (i % 250 === 17) {
      args = [{ event: 5, blob: 'x'.repeat(1_000_000) }];
      label = 'oversized string field';
    } else if (i % 250 === 101) {
      args = [{ ...wideObject(20_000), event: null, name: 5 }];
      label = 'oversized object';
    } else if (i % 250 === 199) {
      args = [Array.from({ length: 50_000 }, (_, k) => k)];
      label = 'oversized array';
    } else if (roll < 0.05) {
      args = [];
      label = 'no argument';
    } else if (roll < 0.1) {
      args = [specific(event, rand), 'not-a-function', 7];
      label = 'non-function where an ack would go';
    } else if (roll < 0.15) {
      args = [specific(event, rand), () => undefined];
      label = 'with an ack function';
    } else if (roll < 0.55) {
      args = [specific(event, rand)];
      label = 'event-specific';
    } else {
      args = [generic(rand)];
      label = 'generic';
    }
    out.push({ event, args, label });
  }
  return out;
}
