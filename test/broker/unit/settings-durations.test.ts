/**
 * Durations in the settings file (issue 7 item 8, issue 8 item 5): one strict grammar — the
 * spec's §10.3 (a number is seconds; `<number>[ms|s|m]`) plus `h` — refused with the key's path
 * when it does not parse, and every delay that reaches a timer bounded by MAX_TIMER_DELAY_MS
 * (a longer Node timer fires after 1 ms).
 */
import { describe, expect, it } from 'vitest';
import { parseAuthConfig } from '../../../broker/auth/auth-schema';
import { parseSettings } from '../../../broker/config/load-settings';
import { buildSubscription } from '../../../broker/routing/subscription-options';
import { MAX_TIMER_DELAY_MS, parseStrictDurationMs } from '../../../shared/duration';

describe('settings durations', () => {
  it.each([
    ['1h', 3_600],
    ['30s', 30],
    ['250ms', 0.25],
    ['2m', 120],
    ['1.5H', 5_400],
    [45, 45],
    ['10', 10],
  ])('ack_timeout %j is %s s', (input, seconds) => {
    expect(parseSettings({ ack_timeout: input }).ack_timeout).toBe(seconds);
  });

  it('gives ACK subscriptions the configured default: "1h" is an hour, not the 30 s fallback', () => {
    const settings = parseSettings({ ack_timeout: '1h' });
    const record = buildSubscription(
      { event: 'job', producer: 'fleet', consumer: 'w', ack: true },
      'job',
      'w',
      settings.ack_timeout,
    );
    expect(record.ackTimeoutMs).toBe(3_600_000);
  });

  it.each(['30 seconds', '-5s', '1d', 'soon', '', '5 s s'])(
    'refuses ack_timeout %j naming the key',
    (input) => {
      expect(() => parseSettings({ ack_timeout: input })).toThrow(/ack_timeout: .*not a duration/);
    },
  );

  it('refuses an ack_timeout of zero or past the longest timer delay', () => {
    expect(() => parseSettings({ ack_timeout: 0 })).toThrow(/ack_timeout/);
    expect(() => parseSettings({ ack_timeout: 3_000_000 })).toThrow(/ack_timeout: .*at most/);
    expect(() => parseSettings({ ackTimeout: '600h' })).toThrow(/ack_timeout/);
    expect(parseSettings({ ack_timeout: '596h' }).ack_timeout).toBe(596 * 3_600);
  });

  it.each([
    ['idle_eviction', 'interval_ms'],
    ['idle_eviction', 'ttl_ms'],
    ['input_limits', 'transfer_idle_timeout_ms'],
    ['input_limits', 'transfer_deadline_ms'],
  ])('bounds %s.%s by MAX_TIMER_DELAY_MS', (block, key) => {
    expect(() => parseSettings({ [block]: { [key]: MAX_TIMER_DELAY_MS + 1 } })).toThrow(
      new RegExp(`${block}\\.${key}`),
    );
    const ok = parseSettings({ [block]: { [key]: MAX_TIMER_DELAY_MS } }) as unknown as Record<
      string,
      Record<string, number>
    >;
    expect(ok[block]![key]).toBe(MAX_TIMER_DELAY_MS);
  });

  it('parseStrictDurationMs has no fallback', () => {
    expect(parseStrictDurationMs('1h')).toBe(3_600_000);
    expect(parseStrictDurationMs('30 seconds')).toBeNull();
    expect(parseStrictDurationMs(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('auth durations (request_ttl, ephemeral_realm_ttl, management max_ttl)', () => {
  const pathOf = (input: unknown): string[] => {
    const result = parseAuthConfig(input);
    return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
  };

  it.each(['30 seconds', '2 days', '-5s', 'soon', ''])(
    'refuses %j naming the key instead of falling back to the default',
    (input) => {
      expect(pathOf({ request_ttl: input })).toEqual(['request_ttl']);
      expect(pathOf({ ephemeral_realm_ttl: input })).toEqual(['ephemeral_realm_ttl']);
      expect(
        pathOf({ management_tokens: [{ token: 't', realm_prefix: 'org:', max_ttl: input }] }),
      ).toEqual(['management_tokens.0.max_ttl']);
    },
  );

  it.each(['1h', '7d', '30s', '250ms', 3_600, '2'])('accepts %j', (input) => {
    expect(pathOf({ request_ttl: input, ephemeral_realm_ttl: input })).toEqual([]);
  });

  it.each(['1h', '60000', -5, 0])(
    'refuses limits.expire_durable_after_ms %j (ms, a positive integer) naming the key',
    (input) => {
      expect(() => parseSettings({ limits: { expire_durable_after_ms: input } })).toThrow(
        /limits\.expire_durable_after_ms/,
      );
    },
  );
});
