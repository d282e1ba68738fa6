/**
 * The node:test adapter itself: `t.plan(n)` fails a test that made another number of
 * assertions, `t.assert` is node:assert's legacy (loose) API as node:test binds it, a failing
 * assertion fails the test, and a listed departure runs as an expected failure.
 */
import assert from 'node:assert';
import { describe, expect, it } from 'vitest';
import { nodeTestAdapter, type NodeTestContext } from './node-test-adapter';

const failsBy = (operator: string) => (err: unknown) =>
  err instanceof assert.AssertionError && err.operator === operator;

describe('nodeTestAdapter', () => {
  const { test, unmatchedExpected } = nodeTestAdapter(
    new Map([
      ['a plan of 2 with one assertion fails', { reason: 'plan', failsWith: failsBy('plan') }],
      ['a plan of 1 with two assertions fails', { reason: 'plan', failsWith: failsBy('plan') }],
      ['a failed assertion fails', { reason: 'assert', failsWith: failsBy('strictEqual') }],
      ['never registered', { reason: 'stale entry' }],
    ]),
  );

  test('a plan met passes', async (t: NodeTestContext) => {
    t.plan(2);
    await Promise.resolve();
    t.assert.ok(true);
    t.assert.deepEqual({ a: 1 }, { a: 1 });
  });
  test('a plan of 2 with one assertion fails', (t: NodeTestContext) => {
    t.plan(2);
    t.assert.ok(true);
  });
  test('a plan of 1 with two assertions fails', (t: NodeTestContext) => {
    t.plan(1);
    t.assert.ok(true);
    t.assert.ok(true);
  });
  test('a failed assertion fails', (t: NodeTestContext) => {
    t.assert.strictEqual(1, 2);
  });
  test('assertions are the legacy loose ones, as in node:test', (t: NodeTestContext) => {
    t.plan(2);
    t.assert.equal(1, '1');
    t.assert.deepEqual({ n: 1 }, { n: '1' });
  });
  test('diagnostics and no plan: nothing counted', (t: NodeTestContext) => {
    t.diagnostic('ignored unless the test fails');
  });

  it('reports a listed departure that names no test', () => {
    expect(unmatchedExpected()).toEqual(['never registered']);
  });
  it('refuses two tests of the same name', () => {
    expect(() => test('a plan met passes', () => {})).toThrow(/duplicate/);
  });
});
