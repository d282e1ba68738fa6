/**
 * Runs a suite written for `node:test` (`test(name, async t => ...)`) under vitest: each
 * `test` becomes a vitest `it`, with a context that has what aedes-persistence's contract suite
 * (`aedes-persistence/abstract.js`) uses of node:test's `TestContext`:
 *
 * - `t.assert.*`: the top-level functions of `node:assert` — the legacy (loose) ones, as
 *   node:test binds them (`equal` is `==`, `deepEqual` is loose), so a check passes here exactly
 *   when it passes under `node --test`;
 * - `t.plan(n)`: node:test semantics — the test fails unless exactly `n` assertions were made
 *   through `t.assert` by the time its function settles; a test that never calls `plan` is not
 *   counted;
 * - `t.diagnostic(msg)`: kept with the test and printed only when the test fails.
 *
 * Expected failures: `expected` maps a test name to a `Departure` (why it fails on purpose);
 * such a test is registered with `it.fails`, so it turning green fails the run (the entry is
 * then stale). With `failsWith`, a failure for any other reason is not accepted either: the
 * body then returns normally (after printing the error), which `it.fails` reports as a failure.
 * `unmatchedExpected()` lists entries naming no registered test (call it after registering).
 */
import assert from 'node:assert';
import { it } from 'vitest';

/** The part of node:test's `TestContext` the adapter provides. */
export interface NodeTestContext {
  readonly name: string;
  readonly assert: typeof assert;
  plan(count: number): void;
  diagnostic(message: string): void;
}

export type NodeTestFn = (t: NodeTestContext) => unknown;

/** A contract test that fails on purpose. */
export interface Departure {
  /** One line: what we do instead, and why (spec section). */
  reason: string;
  /** Whether an error is the departure's own failure; unset = any failure is. */
  failsWith?: (err: unknown) => boolean;
}
export type NodeTest = (name: string, fn: NodeTestFn) => void;

/** The node:assert methods node:test exposes as `t.assert` (Node 22's list). */
const ASSERTIONS = [
  'deepEqual',
  'deepStrictEqual',
  'doesNotMatch',
  'doesNotReject',
  'doesNotThrow',
  'equal',
  'fail',
  'ifError',
  'match',
  'notDeepEqual',
  'notDeepStrictEqual',
  'notEqual',
  'notStrictEqual',
  'ok',
  'rejects',
  'strictEqual',
  'throws',
] as const;

/** One test's context: the counting `assert`, and the check of its plan once it settled. */
function contextFor(name: string): { t: NodeTestContext; verify(): void; log: string[] } {
  let made = 0;
  let planned: number | null = null;
  const log: string[] = [];
  const counted: Record<string, unknown> = {};
  for (const method of ASSERTIONS) {
    const fn = assert[method] as (...args: unknown[]) => unknown;
    counted[method] = (...args: unknown[]) => {
      made++;
      return fn(...args);
    };
  }
  const t: NodeTestContext = {
    name,
    assert: counted as unknown as typeof assert,
    plan(count) {
      if (planned !== null) throw new Error(`t.plan() called twice in "${name}"`);
      planned = count;
    },
    diagnostic(message) {
      log.push(message);
    },
  };
  const verify = () => {
    if (planned !== null && made !== planned) {
      throw new assert.AssertionError({
        message: `plan expected ${planned} assertions but received ${made}`,
        actual: made,
        expected: planned,
        operator: 'plan',
      });
    }
  };
  return { t, verify, log };
}

/**
 * A node:test-shaped `test` that registers vitest tests in the current `describe`.
 * @param expected test name → why it fails on purpose (registered with `it.fails`)
 * @returns the `test` function, and `unmatchedExpected()`: expected names never registered
 */
export function nodeTestAdapter(expected: ReadonlyMap<string, Departure> = new Map()): {
  test: NodeTest;
  unmatchedExpected(): string[];
} {
  const seen = new Set<string>();
  const test: NodeTest = (name, fn) => {
    if (seen.has(name)) throw new Error(`duplicate node:test name "${name}"`);
    seen.add(name);
    const body = async () => {
      const { t, verify, log } = contextFor(name);
      try {
        await fn(t);
        verify();
      } catch (err) {
        if (log.length > 0 && err instanceof Error) {
          err.message += `\n  diagnostics: ${log.join(' | ')}`;
        }
        throw err;
      }
    };
    const departure = expected.get(name);
    if (departure === undefined) {
      it(name, body);
      return;
    }
    it.fails(`${name} [departure: ${departure.reason}]`, async () => {
      try {
        await body();
      } catch (err) {
        if (!departure.failsWith || departure.failsWith(err)) throw err;
        // Failing for another reason than the listed one: returning makes `it.fails` fail.
        console.error(`"${name}" failed, but not as its departure says:`, err);
      }
    });
  };
  return { test, unmatchedExpected: () => [...expected.keys()].filter((n) => !seen.has(n)) };
}
