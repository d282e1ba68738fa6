/** The relay wrapper both ways (`spec/protocol-core.md` §17): fields, TTLs, broadcasts. */
import { describe, expect, it } from 'vitest';
import { ClusterSettingsSchema } from '../../broker/cluster/cluster-schema';
import { safeRedisUrl as redactRedisUrl } from '../../broker/storage/redis-keys';
import { parseRelayed, relayText } from '../../broker/cluster/relay-wire';
import type { ProducedMessage } from '../../broker/routing/produced-message';

const base: ProducedMessage = {
  realm: 'default',
  event: 'job',
  message: { n: 1 },
  from: 'fleet',
  ttl: undefined,
  guaranteed: false,
  broadcast: null,
  group: null,
};

describe('relay wrapper', () => {
  it('sends the effective TTL: the store default when unset, null when it never expires', () => {
    const wire = (msg: ProducedMessage) =>
      (JSON.parse(relayText('n1', msg, 86_400)) as { payload: Record<string, unknown> }).payload;
    expect(wire(base)).toEqual({
      realm: 'default',
      event: 'job',
      message: { n: 1 },
      producer: 'fleet',
      ttl: 86_400,
      guaranteed: false,
      enc: null,
      to: null,
      contentType: null,
      method: null,
      broadcast: null,
      group: null,
      groups_served: [],
    });
    expect(wire({ ...base, ttl: null }).ttl).toBeNull();
    expect(wire({ ...base, ttl: 5 }).ttl).toBe(5);
    const back = parseRelayed('n2', relayText('n1', { ...base, ttl: null }, 86_400));
    expect(back).toMatchObject({ ttl: null, relayedFrom: 'n1', origin: 'cluster' });
  });

  it('round-trips realm and group broadcasts, and falls back to realm without a group', () => {
    for (const broadcast of ['realm', 'group'] as const) {
      const msg = { ...base, broadcast, group: broadcast === 'group' ? 'workers' : null };
      expect(parseRelayed('n2', relayText('n1', msg, 60))).toMatchObject({ broadcast });
    }
    const text = JSON.stringify({
      node_id: 'ref',
      payload: { realm: 'r', event: 'e', method: 'broadcast', broadcast: 'group', group: null },
    });
    expect(parseRelayed('n2', text)).toMatchObject({ broadcast: 'realm', from: 'ANONYMOUS' });
  });

  it('carries the groups the origin served and its sequence number (extensions)', () => {
    const msg = { ...base, groupsServed: [['default', 'workers']] as [string, string][] };
    expect(parseRelayed('n2', relayText('n1', msg, 60, 7))).toMatchObject({
      groupsServed: [['default', 'workers']],
      relaySeq: 7,
    });
    // A reference wrapper says nothing of groups: peers then leave groups alone (§17).
    const reference = parseRelayed('n2', '{"node_id":"r","payload":{"realm":"x","event":"e"}}');
    expect(reference).not.toHaveProperty('groupsServed');
  });

  it('knows its own wrappers and refuses ones without realm or event', () => {
    expect(parseRelayed('n1', relayText('n1', base, 60))).toBe('own');
    expect(parseRelayed('n2', '{"node_id":"x","payload":{"realm":"r"}}')).toBeNull();
    expect(parseRelayed('n2', '{"node_id":"x","payload":{"event":"e"}}')).toBeNull();
    expect(parseRelayed('n2', '{"payload":{"realm":"r","event":"e"}}')).toBeNull();
    expect(parseRelayed('n2', 'garbage')).toBeNull();
  });
});

describe('safeRedisUrl', () => {
  it('hides the password of the userinfo and of secret-looking query values', () => {
    expect(redactRedisUrl('redis://user:s3cret@h:6379/0')).toBe('redis://user:***@h:6379/0');
    expect(redactRedisUrl('redis://:s3cret@h:6379')).toBe('redis://:***@h:6379');
    const q = redactRedisUrl('rediss://h:6380/?password=s3cret&db=2');
    expect(q).not.toContain('s3cret');
    expect(q).toContain('db=2');
    expect(redactRedisUrl('not a url')).toBe('<unparsable redis url>');
  });
});

describe('cluster settings', () => {
  it('refuses an empty prefix with one clear message, and glob characters', () => {
    const empty = ClusterSettingsSchema.safeParse({ enabled: true, prefix: '' });
    expect(empty.success).toBe(false);
    expect(empty.error?.issues).toHaveLength(1);
    expect(ClusterSettingsSchema.safeParse({ prefix: 'a*b' }).success).toBe(false);
    expect(ClusterSettingsSchema.safeParse({ redis_url: 'http://x' }).success).toBe(false);
    expect(ClusterSettingsSchema.parse({}).prefix).toBe('tyo-mq:cluster');
  });
});
