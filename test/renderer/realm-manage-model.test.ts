/** The Realms view's lifetime field and its one "require key" action, as pure functions. */
import { describe, expect, it } from 'vitest';
import type { RealmSummary } from '../../shared/console-api';
import {
  consumerAccessText,
  initialTtlText,
  keyRequiredText,
  lifetimeText,
  requireKeyPlan,
} from '../../renderer/src/views/realms/realm-manage';
import { secretOutlived } from '../../renderer/src/views/realms/secret-reveal';

const realm = (over: Partial<RealmSummary> = {}): RealmSummary => ({
  name: 'fleet',
  authRequired: true,
  keyConfigured: false,
  keyRequired: false,
  managerKeyConfigured: false,
  acceptanceRequired: true,
  tokenlessConsumers: false,
  consumerAccess: 'token',
  ephemeral: false,
  expiresAt: null,
  ttlMs: null,
  ...over,
});

describe('realm lifetime field', () => {
  it('starts with the realm’s own TTL, not a fixed 1h', () => {
    const now = 1_000_000;
    expect(
      initialTtlText(realm({ ephemeral: true, expiresAt: now + 90_000, ttlMs: 120_000 }), now),
    ).toBe('2m');
    // A broker that does not report the TTL: the time left, rounded up to a minute.
    expect(initialTtlText(realm({ ephemeral: true, expiresAt: now + 90_000 }), now)).toBe('2m');
    // A permanent realm has no TTL: the field starts empty (it said "1h", read as the lifetime).
    expect(initialTtlText(realm(), now)).toBe('');
    // A permanent realm that was ephemeral once (the broker may keep its old fields).
    expect(initialTtlText(realm({ ttlMs: 120_000, expiresAt: now + 90_000 }), now)).toBe('');
  });

  it('says "Permanent", or the ephemeral realm’s TTL', () => {
    expect(lifetimeText(realm())).toBe('Permanent');
    expect(lifetimeText(realm({ ephemeral: true, ttlMs: 7_200_000 }))).toBe('Ephemeral · TTL 2h');
    expect(lifetimeText(realm({ ephemeral: true }))).toBe('Ephemeral');
  });
});

describe('require key on/off', () => {
  it('keeps a set key: only the requirement changes, and says what changes for consumers', () => {
    const on = requireKeyPlan(realm({ keyConfigured: true, keyRequired: true }));
    // It said "(rotates the key)" and did: turning the requirement off replaced the key.
    expect(on).toMatchObject({ label: 'Require key off', next: false, rotates: false });
    expect(on.consequence).toContain('The pre-shared key is kept');
    expect(on.consequence).not.toContain('old key stops working');
    expect(on.consequence).toContain('need a token');
    const open = requireKeyPlan(
      realm({ keyConfigured: true, keyRequired: true, tokenlessConsumers: true }),
    );
    expect(open.consequence).toContain('anyone who knows the realm’s name can read it');
    expect(requireKeyPlan(realm({ keyConfigured: true }))).toMatchObject({
      label: 'Require key on',
      next: true,
      rotates: false,
    });
  });

  it('generates a first key to turn it on, and turns it off without one', () => {
    expect(requireKeyPlan(realm())).toMatchObject({
      label: 'Require key on (generates a key)',
      rotates: true,
    });
    expect(requireKeyPlan(realm({ keyRequired: true }))).toMatchObject({
      label: 'Require key off',
      rotates: false,
    });
  });
});

describe('require key state, in words that agree with "Who can connect"', () => {
  it('does not say "need no key" where token-less consumers are refused', () => {
    const closed = realm();
    expect(consumerAccessText(closed)).toContain('consumers need a token');
    expect(keyRequiredText(closed)).toBe('the key is not asked for; consumers need a token');
    const tokenless = realm({ tokenlessConsumers: true, consumerAccess: 'tokenless' });
    expect(keyRequiredText(tokenless)).toBe('consumers without a token need no key');
    const keyed = realm({ keyConfigured: true, keyRequired: true, consumerAccess: 'token-or-key' });
    expect(consumerAccessText(keyed)).toContain('a token or the pre-shared key');
    expect(keyRequiredText(keyed)).toBe('consumers without a token must present the key');
  });
});

describe('a revealed key whose realm is gone', () => {
  it('is flagged once the realm leaves the list, never for a management token', () => {
    const key = { kind: 'realmKey' as const, target: 'lab' };
    expect(secretOutlived(key, [{ name: 'lab' }])).toBe(false);
    expect(secretOutlived(key, [{ name: 'default' }])).toBe(true);
    expect(secretOutlived({ ...key, kind: 'managerKey' }, [])).toBe(true);
    // Not loaded yet: nothing to say.
    expect(secretOutlived(key, undefined)).toBe(false);
    expect(secretOutlived({ kind: 'managementToken', target: '*' }, [])).toBe(false);
  });
});
