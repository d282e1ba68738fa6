import { describe, expect, it } from 'vitest';
import { DEFAULT_REALM_TTL_MS, defaultRealmTtlMs, parseRealmTtlMs } from '../../shared/realm-ttl';

describe('realm TTL grammar (§9.1)', () => {
  it('reads numbers as seconds and strings with every unit', () => {
    expect(parseRealmTtlMs(300)).toBe(300_000);
    expect(parseRealmTtlMs(0.5)).toBe(500);
    expect(parseRealmTtlMs('2s')).toBe(2_000);
    expect(parseRealmTtlMs('250ms')).toBe(250);
    expect(parseRealmTtlMs('30m')).toBe(1_800_000);
    expect(parseRealmTtlMs('2H')).toBe(7_200_000);
    expect(parseRealmTtlMs(' 7d ')).toBe(7 * 86_400_000);
    expect(parseRealmTtlMs('1.5h')).toBe(5_400_000);
    expect(parseRealmTtlMs('45')).toBe(45_000);
  });

  it('refuses zero, negatives, unknown units and other types', () => {
    for (const bad of [
      0,
      -1,
      '0',
      '0s',
      '-5s',
      'soonish',
      '2w',
      '1 h',
      '.5s',
      '',
      NaN,
      Infinity,
      null,
      {},
      [],
      true,
    ]) {
      expect(parseRealmTtlMs(bad)).toBeNull();
    }
  });

  it('falls back to one day for an invalid default', () => {
    expect(defaultRealmTtlMs(undefined)).toBe(DEFAULT_REALM_TTL_MS);
    expect(defaultRealmTtlMs('nope')).toBe(DEFAULT_REALM_TTL_MS);
    expect(defaultRealmTtlMs('1h')).toBe(3_600_000);
  });
});

describe('formatRealmTtl', () => {
  it('writes the largest exact unit, which parseRealmTtlMs reads back', async () => {
    const { formatRealmTtl } = await import('../../shared/realm-ttl');
    const cases: [number, string][] = [
      [120_000, '2m'],
      [3_600_000, '1h'],
      [5_400_000, '90m'],
      [86_400_000, '1d'],
      [90_000, '90s'],
      [1_500, '1500ms'],
    ];
    for (const [ms, text] of cases) {
      expect(formatRealmTtl(ms)).toBe(text);
      expect(parseRealmTtlMs(text)).toBe(ms);
    }
    for (const bad of [0, -5, Number.NaN, null, undefined]) expect(formatRealmTtl(bad)).toBeNull();
  });
});
