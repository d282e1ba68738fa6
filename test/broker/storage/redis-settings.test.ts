/**
 * Choosing the Redis store outside the settings file: `--storage redis` on the CLI and
 * `set_persistence` with `storage: "redis"` (`spec/protocol-admin.md` §8.4), whose URL must be
 * a Redis URL (400 otherwise, as the store could not be built from it).
 */
import { describe, expect, it } from 'vitest';
import { setPersistence } from '../../../broker/admin/persistence-commands';
import { CommandError } from '../../../broker/admin/command-types';
import { parseBrokerFlags, UsageError } from '../../../broker/cli-flags';

describe('Redis storage selection', () => {
  it('accepts --storage redis and names every choice when refusing another', () => {
    expect(parseBrokerFlags(['--storage', 'redis'], {}).storage).toBe('redis');
    expect(() => parseBrokerFlags(['--storage', 'mongo'], {})).toThrow(
      new UsageError('Invalid --storage mongo: use sqlite, memory or redis'),
    );
  });

  it('set_persistence records url, prefix and default_ttl, and refuses a non-Redis URL', () => {
    expect(
      setPersistence(
        { storage: 'Redis', url: 'rediss://:pw@cache:6380/1', prefix: 'p', default_ttl: 9 },
        false,
      ),
    ).toEqual({
      storage: 'redis',
      storage_options: { url: 'rediss://:pw@cache:6380/1', prefix: 'p', default_ttl: 9 },
    });
    const refused = () => setPersistence({ storage: 'redis', url: 'http://cache:6379' }, false);
    expect(refused).toThrow(CommandError);
    expect(refused).toThrow('storage_options.url must be a redis:// or rediss:// URL');
    expect(() => setPersistence({ storage: 'redis', storage_options: { url: 42 } }, false)).toThrow(
      /storage_options\.url/,
    );
  });
});
