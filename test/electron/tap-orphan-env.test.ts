/**
 * `$SWITCHBOARD_TAP_ORPHAN_MS` (docs/console.md "Live tap"): the delay after which the console
 * stops taps and topic trees no page listens to. Unset or empty, the 10 s default; a positive
 * integer, that many ms; anything else refuses to start rather than fall back silently.
 */
import { describe, expect, it } from 'vitest';
import { TAP_ORPHAN_MS_ENV, tapOrphanMsFromEnv } from '../../electron/services/local-console';

describe('tapOrphanMsFromEnv', () => {
  it('keeps the default when the variable is unset or empty', () => {
    expect(tapOrphanMsFromEnv({})).toBeUndefined();
    expect(tapOrphanMsFromEnv({ [TAP_ORPHAN_MS_ENV]: '' })).toBeUndefined();
  });

  it('reads a positive integer as ms', () => {
    expect(tapOrphanMsFromEnv({ [TAP_ORPHAN_MS_ENV]: '1000' })).toBe(1_000);
  });

  it.each(['0', '-5', '1.5', '10s', 'abc'])('refuses %j', (raw) => {
    expect(() => tapOrphanMsFromEnv({ [TAP_ORPHAN_MS_ENV]: raw })).toThrow(TAP_ORPHAN_MS_ENV);
  });
});
