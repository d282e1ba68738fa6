/**
 * `inspectPayload` (handlers/payload-guard.ts, spec/protocol-core.md §19): with the
 * allocation-free clean scan in front, every payload must get exactly the verdict of the
 * iterative walk alone (null, or the same refusal text when several faults compete), and a
 * hostile depth must not overflow the call stack.
 */
import { describe, expect, it } from 'vitest';
import { BINARY_PAYLOAD, inspectPayload } from '../../../broker/handlers/payload-guard';

const isBinary = (node: object): boolean =>
  ArrayBuffer.isView(node) || node instanceof ArrayBuffer || node instanceof SharedArrayBuffer;

/** The walk alone (the implementation before the clean scan), as the reference. */
function reference(value: unknown, maxDepth: number): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (isBinary(node as object)) return BINARY_PAYLOAD;
    if (depth > maxDepth) return `payload nested deeper than ${maxDepth} levels`;
    if (Array.isArray(node)) {
      for (const item of node)
        if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(node as object)) {
      if (key === '__proto__') return 'payload contains a "__proto__" key';
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return null;
}

/** Deterministic payloads (xorshift) with rare binary leaves and `__proto__` keys. */
function generator(seed: number) {
  let x = Math.imul(seed, 2654435761) | 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < 8; i++) next();
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 9 || r < 0.25) return next() < 0.5 ? 'text' : next() * 100;
    if (r < 0.28) return Buffer.from('ab');
    if (r < 0.3) return new Uint8Array(2).buffer;
    if (r < 0.32) return JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    const n = Math.floor(next() * 4);
    for (let i = 0; i < n; i++) o[`k${i}`] = value(depth + 1);
    return o;
  };
  return value;
}

describe('inspectPayload', () => {
  it('gives the walk’s verdict for every payload, faults and clean ones alike', () => {
    const verdicts = new Map<string, number>();
    for (let seed = 1; seed <= 2_000; seed++) {
      const v = generator(seed)(0);
      for (const maxDepth of [3, 6, 32]) {
        const expected = reference(v, maxDepth);
        expect(inspectPayload(v, maxDepth)).toBe(expected);
        const kind = expected === null ? 'clean' : expected.slice(0, 20);
        verdicts.set(kind, (verdicts.get(kind) ?? 0) + 1);
      }
    }
    // Clean payloads and each kind of refusal were all exercised.
    expect([...verdicts.keys()].sort()).toEqual([
      'clean',
      'payload carries bina',
      'payload contains a "',
      'payload nested deepe',
    ]);
  });

  it('ignores inherited keys, as Object.keys does', () => {
    const o = Object.create({ inherited: { deep: {} } }) as Record<string, unknown>;
    o.own = 1;
    expect(inspectPayload(o, 1)).toBeNull();
  });

  it('handles nesting far deeper than the scan recurses, with any max depth', () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { a: deep };
    expect(inspectPayload(deep, 200_000)).toBeNull();
    expect(inspectPayload(deep, 32)).toBe('payload nested deeper than 32 levels');
    expect(inspectPayload({ a: [{ b: Buffer.from('x') }] }, 200_000)).toBe(BINARY_PAYLOAD);
  });
});
