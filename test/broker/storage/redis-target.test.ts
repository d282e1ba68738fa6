/**
 * The `sentinel` settings of `cluster` and `storage_options` (broker/storage/redis-target.ts):
 * validation and its errors, which Redis the cluster uses, the ioredis options built for a URL
 * or a Sentinel set, and that no password reaches the status text or the settings view.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { publicSettings } from '../../../broker/admin/public-settings';
import { clusterRedisTarget } from '../../../broker/cluster/create-cluster';
import { parseSettings } from '../../../broker/config/load-settings';
import {
  describeRedisTarget,
  parseSentinelAddress,
  redisConnectionOptions,
  redisUrlOptions,
  type RedisTarget,
} from '../../../broker/storage/redis-target';
import { AuthConfigSchema } from '../../../broker/auth/auth-schema';

const cluster = (sentinel: unknown, extra: Record<string, unknown> = {}) =>
  parseSettings({ cluster: { enabled: true, sentinel, ...extra } });

describe('sentinel settings', () => {
  it('accepts {host, port} and "host:port" entries, with port 26379 by default', () => {
    const s = cluster({
      sentinels: ['10.0.0.1:26380', 's2.example', '[::1]:26381', { host: 's3' }],
      name: 'mymaster',
      password: 'pw',
      sentinelPassword: 'spw',
    });
    expect(s.cluster?.sentinel).toEqual({
      sentinels: [
        { host: '10.0.0.1', port: 26380 },
        { host: 's2.example', port: 26379 },
        { host: '::1', port: 26381 },
        { host: 's3', port: 26379 },
      ],
      name: 'mymaster',
      password: 'pw',
      sentinel_password: 'spw',
    });
    expect(
      parseSettings({ storage_options: { sentinel: { sentinels: ['a:1'], masterName: 'm' } } })
        .storage_options.sentinel,
    ).toEqual({ sentinels: [{ host: 'a', port: 1 }], name: 'm' });
  });

  it('refuses a set without sentinels or name, bad addresses and unknown keys, naming them', () => {
    expect(() => cluster({ sentinels: [], name: 'm' })).toThrow(
      /cluster\.sentinel\.sentinels: needs at least one sentinel/,
    );
    expect(() => cluster({ sentinels: ['a:1'] })).toThrow(/cluster\.sentinel\.name/);
    expect(() => cluster({ sentinels: ['a:99999'], name: 'm' })).toThrow(
      /cluster\.sentinel\.sentinels\.0: must be "host:port"/,
    );
    expect(() => cluster({ sentinels: ['redis://a:1'], name: 'm' })).toThrow(
      /cluster\.sentinel\.sentinels\.0/,
    );
    expect(() => cluster({ sentinels: [{ host: 'a', port: 0 }], name: 'm' })).toThrow(
      /cluster\.sentinel\.sentinels\.0/,
    );
    expect(() => cluster({ sentinels: ['a'], name: 'm', pasword: 'x' })).toThrow(/pasword/);
    expect(() => cluster({ sentinels: ['a'], name: 'm', tls: 'yes' })).toThrow(
      /cluster\.sentinel\.tls/,
    );
  });

  it('parses sentinel addresses', () => {
    expect(parseSentinelAddress(' h:1 ')).toEqual({ host: 'h', port: 1 });
    expect(parseSentinelAddress('h')).toEqual({ host: 'h', port: 26379 });
    expect(parseSentinelAddress('h:')).toBeUndefined();
    expect(parseSentinelAddress('a b:1')).toBeUndefined();
    expect(parseSentinelAddress('')).toBeUndefined();
  });
});

describe('which Redis the cluster uses', () => {
  const sentinel = { sentinels: ['s:26379'], name: 'm' };
  const target = (input: Record<string, unknown>): RedisTarget => {
    const s = parseSettings(input);
    return clusterRedisTarget(s, s.cluster!);
  };

  it("its own sentinel set or URL, else the store's, else the default URL", () => {
    expect(target({ cluster: { enabled: true, sentinel, redis_url: 'redis://:pw@x' } })).toEqual({
      kind: 'sentinel',
      sentinel: { sentinels: [{ host: 's', port: 26379 }], name: 'm' },
      url: 'redis://:pw@x',
    });
    expect(
      target({ cluster: { enabled: true }, storage_options: { sentinel, url: 'redis://y' } }),
    ).toMatchObject({ kind: 'sentinel', url: 'redis://y' });
    expect(
      target({ cluster: { enabled: true, redis_url: 'redis://z' }, storage_options: { sentinel } }),
    ).toEqual({ kind: 'url', url: 'redis://z' });
    expect(target({ cluster: { enabled: true } })).toEqual({
      kind: 'url',
      url: 'redis://127.0.0.1:6379',
    });
  });
});

describe('ioredis options', () => {
  it('reads a URL as ioredis does', () => {
    for (const url of [
      'redis://127.0.0.1:6390',
      'redis://:p%40ss@cache:6380/2',
      'redis://user:pw@[::1]:6379/0?family=6',
      'rediss://cache.example',
      'redis://cache?password=q&db=3',
    ]) {
      const ours = new Redis(redisConnectionOptions({ kind: 'url', url }, { lazyConnect: true }));
      const theirs = new Redis(url, { lazyConnect: true });
      for (const key of ['host', 'port', 'username', 'password', 'db', 'family'] as const) {
        expect([url, key, ours.options[key]]).toEqual([url, key, theirs.options[key]]);
      }
      expect(Boolean(ours.options.tls)).toBe(Boolean(theirs.options.tls));
      ours.disconnect();
      theirs.disconnect();
    }
    expect(() => redisUrlOptions('not a url')).toThrow(TypeError);
  });

  it('builds a Sentinel set: the URL gives password, db and TLS; the block wins; extra last', () => {
    const sentinel = {
      sentinels: [{ host: 's1', port: 26379 }],
      name: 'm',
      sentinel_password: 'spw',
    };
    const o = redisConnectionOptions(
      { kind: 'sentinel', sentinel, url: 'rediss://:urlpw@ignored:1/4' },
      { connectTimeout: 7, connectionName: 'x' },
    );
    expect(o).toMatchObject({
      sentinels: [{ host: 's1', port: 26379 }],
      name: 'm',
      role: 'master',
      password: 'urlpw',
      db: 4,
      sentinelPassword: 'spw',
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelTLS: {},
      failoverDetector: true,
      connectTimeout: 7,
      connectionName: 'x',
    });
    expect(o.host).toBeUndefined();
    const own = redisConnectionOptions(
      {
        kind: 'sentinel',
        sentinel: { ...sentinel, password: 'own', tls: false },
        url: 'rediss://:u@h',
      },
      {},
    );
    expect(own).toMatchObject({ password: 'own' });
    expect(own.tls).toBeUndefined();
    expect(own.sentinelTLS).toBeUndefined();
  });

  it('reconnects on READONLY only, and stops retrying the sentinels once closed', () => {
    let closed = false;
    const o = redisConnectionOptions(
      { kind: 'sentinel', sentinel: { sentinels: [{ host: 's', port: 1 }], name: 'm' } },
      {},
      () => closed,
    );
    const reconnect = o.reconnectOnError as (err: Error) => boolean;
    expect(reconnect(new Error("READONLY You can't write against a read only replica."))).toBe(
      true,
    );
    expect(reconnect(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(o.sentinelRetryStrategy?.(50)).toBe(1_000);
    closed = true;
    expect(o.sentinelRetryStrategy?.(1)).toBeNull();
    expect(o.sentinelReconnectStrategy?.(1)).toBeNull();
  });
});

describe('no password in status or settings views', () => {
  it('describes a Sentinel set by its sentinels and name, a URL with *** for secrets', () => {
    expect(
      describeRedisTarget({
        kind: 'sentinel',
        sentinel: {
          sentinels: [
            { host: 'a', port: 1 },
            { host: '::1', port: 2 },
          ],
          name: 'm',
          password: 'pw',
          sentinel_password: 'spw',
        },
        url: 'redis://:urlpw@h',
      }),
    ).toBe('sentinel://a:1,[::1]:2/m');
    expect(describeRedisTarget({ kind: 'url', url: 'redis://:pw@h:1' })).toBe('redis://:***@h:1');
  });

  it('redacts the sentinel passwords of storage_options in the public settings view', () => {
    const view = publicSettings(
      AuthConfigSchema.parse({}),
      {
        storage: 'redis',
        storage_options: {
          url: 'redis://:pw@h',
          sentinel: {
            sentinels: [{ host: 'a', port: 1 }],
            name: 'm',
            password: 'pw',
            sentinel_password: 'spw',
          },
        },
      },
      undefined,
    );
    expect(JSON.stringify(view)).not.toMatch(/"s?pw"|:pw@/);
    expect(view.persistence).toMatchObject({
      storage_options: { sentinel: { password: '<redacted>', sentinel_password: '<redacted>' } },
    });
  });
});
