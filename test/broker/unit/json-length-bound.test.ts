/**
 * `jsonLengthUpperBound` (delivery/chunked-emit.ts, the §14.2 chunking pre-check): the
 * allocation-free walk must give the bound of the work-stack walk it replaced whenever that
 * bound is within the budget, and a number over the budget otherwise; it must stay a bound of
 * the real JSON length; deep nesting must not overflow the call stack.
 */
import { describe, expect, it } from 'vitest';
import { jsonLengthUpperBound } from '../../../broker/delivery/chunked-emit';

/** The previous implementation (explicit stack, `Object.keys`), as the reference. */
function reference(value: unknown, budget: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= budget) {
    const v = stack.pop();
    if (typeof v === 'string') total += 2 + 6 * v.length;
    else if (typeof v === 'number' || typeof v === 'bigint') total += 24;
    else if (typeof v === 'boolean' || v === null) total += 5;
    else if (Array.isArray(v)) {
      total += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object') {
      total += 2;
      for (const key of Object.keys(v)) {
        total += 4 + 6 * key.length;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}

/** Deterministic pseudo-random values (xorshift), JSON-like plus `undefined` fields. */
function generator(seed: number) {
  let x = seed;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 5 || r < 0.3) return 'é"\\x'.repeat(Math.floor(next() * 20));
    if (r < 0.4) return next() * 1e6;
    if (r < 0.45) return next() < 0.5 ? null : true;
    if (r < 0.5) return undefined;
    if (r < 0.7) return Array.from({ length: Math.floor(next() * 6) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    const n = Math.floor(next() * 6);
    for (let i = 0; i < n; i++) o[`k${i}${'y'.repeat(Math.floor(next() * 4))}`] = value(depth + 1);
    return o;
  };
  return value;
}

describe('jsonLengthUpperBound', () => {
  it('matches the stack walk within the budget, and passes the budget when it does', () => {
    let within = 0;
    let over = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const v = generator(seed)(0);
      for (const budget of [50, 500, 5_000, 1e9]) {
        const ref = reference(v, budget);
        const got = jsonLengthUpperBound(v, budget);
        if (ref <= budget) {
          within++;
          expect(got).toBe(ref);
        } else {
          over++;
          expect(got).toBeGreaterThan(budget);
        }
        const json = JSON.stringify(v);
        if (got <= budget && json !== undefined) expect(got).toBeGreaterThanOrEqual(json.length);
      }
    }
    // Both branches were exercised.
    expect(within).toBeGreaterThan(100);
    expect(over).toBeGreaterThan(100);
  });

  it('counts own keys only, as Object.keys does (Buffers: indices, not prototype methods)', () => {
    const proto = { inherited: 'x'.repeat(100) };
    const o = Object.assign(Object.create(proto) as Record<string, unknown>, { own: 'ab' });
    expect(jsonLengthUpperBound(o, 1e9)).toBe(reference(o, 1e9));
    const buf = Buffer.from('hello');
    expect(jsonLengthUpperBound(buf, 1e9)).toBe(reference(buf, 1e9));
  });

  it('walks nesting far deeper than the recursion limit without overflowing', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { a: deep };
    expect(jsonLengthUpperBound(deep, 1e9)).toBe(reference(deep, 1e9));
    expect(jsonLengthUpperBound(deep, 1_000)).toBeGreaterThan(1_000);
  });
});
