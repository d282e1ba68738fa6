import { describe, expect, it } from 'vitest';
import { parseDurationMs, parseTtlSeconds } from '../../shared/duration';

describe('parseDurationMs (spec §10.3)', () => {
  it.each([
    [0.3, 300],
    [30, 30_000],
    ['100ms', 100],
    ['1.5s', 1500],
    ['2M', 120_000],
    ['5', 5000],
    ['1h', 999],
    ['-5s', 999],
    [{}, 999],
    [Number.NaN, 999],
  ])('%s → %s', (input, expected) => {
    expect(parseDurationMs(input, 999)).toBe(expected);
  });
});

describe('parseTtlSeconds (Note 9.3-A)', () => {
  it.each([
    [3600, 3600],
    ['1h', 3600],
    ['30m', 1800],
    ['500ms', 0.5],
    [0, 0],
    [-1, null],
    [Number.POSITIVE_INFINITY, null],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s', (input, expected) => {
    expect(parseTtlSeconds(input)).toBe(expected);
  });
});
