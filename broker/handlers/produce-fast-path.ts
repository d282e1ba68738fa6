/**
 * Allocation-free validation of the common `PRODUCE` payload (issue 25 item 1, tail latency).
 *
 * Why: `ProducePayload.safeParse` (shared/protocol-payloads.ts, spec §3.4, §19) builds a new
 * object, a result object and per-field work for every message: about 1.9 KB of garbage per
 * `PRODUCE`, three quarters of what the broker allocates per message beyond a bare socket.io
 * relay (V8 sampling heap profile of `BENCH_ONLY=tail`). More garbage means more frequent
 * scavenges, and on a loaded machine a scavenge is what occasionally stalls the event loop
 * for tens of milliseconds — the broker's p99/p99.9 excess over the relay.
 *
 * `producePayloadFast(value)` returns `value` itself when zod would accept it and return an
 * object equal to it key for key and in the same key order; otherwise `null`, and the caller
 * runs the schema as before (so every refusal and its message is zod's). Accepted shape:
 *   - a plain object (prototype `Object.prototype`) with own enumerable string keys only;
 *   - `event`: a string of 1 to `MAX_EVENT_LENGTH` UTF-16 code units (the object form of
 *     `EventField` is transformed by zod: left to it);
 *   - `from`, `group`: absent, `null`, `undefined` or a string of at most `MAX_NAME_LENGTH`;
 *   - `ttl`, `lifespan`: absent, `null` or `undefined` (numbers and strings: left to zod);
 *   - the schema's other keys are `z.unknown()`: any value, passed through by zod unchanged;
 *   - key order: zod's output lists the schema's keys present (in schema order), then the
 *     others (in input order), so the input must already be in that order. The stock clients'
 *     `{event, message, from}` is.
 * Equivalence holds for data objects (own enumerable data properties: all that JSON decoding
 * yields); a class instance or an object with symbol keys takes the schema path.
 * Values are not copied by zod either (`message` is the same object), so handlers see the same
 * data. The only difference is identity: the handler gets the decoded payload object rather
 * than a shallow copy of it (no handler mutates its payload).
 */
import { MAX_EVENT_LENGTH, MAX_NAME_LENGTH, ProducePayload } from '../../shared/protocol-payloads';

/** The schema's keys in its declaration order (zod's output order for them). */
const SHAPE_KEYS: readonly string[] = Object.keys(ProducePayload.shape);
const SHAPE_INDEX = new Map(SHAPE_KEYS.map((k, i) => [k, i]));

const hasOwn = Object.prototype.hasOwnProperty;

function optionalName(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.length <= MAX_NAME_LENGTH);
}

/**
 * `value` as a valid `ProducePayload` when the fast path can vouch for it (see above), else
 * `null` (not a refusal: run `ProducePayload.safeParse`). Allocates nothing.
 */
export function producePayloadFast(value: unknown): (ProducePayload & { event: string }) | null {
  if (typeof value !== 'object' || value === null) return null;
  if (Object.getPrototypeOf(value) !== Object.prototype) return null;
  const o = value as Record<string, unknown>;
  const event = o.event;
  if (typeof event !== 'string' || event.length < 1 || event.length > MAX_EVENT_LENGTH) {
    return null;
  }
  if (!optionalName(o.from) || !optionalName(o.group)) return null;
  if ((o.ttl !== undefined && o.ttl !== null) || (o.lifespan !== undefined && o.lifespan !== null))
    return null;
  // Key order: schema keys ascending by schema position, then only non-schema keys.
  let last = -1;
  let extras = false;
  for (const key in o) {
    // An inherited enumerable key (a polluted prototype) is zod's to judge.
    if (!hasOwn.call(o, key)) return null;
    const i = SHAPE_INDEX.get(key);
    if (i === undefined) {
      extras = true;
      continue;
    }
    if (extras || i < last) return null;
    last = i;
  }
  // Symbol keys are not copied by zod: such an object is left to it (never from JSON).
  if (Object.getOwnPropertySymbols(o).length > 0) return null;
  return o as ProducePayload & { event: string };
}
