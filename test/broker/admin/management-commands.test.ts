/**
 * The §8.2 catalogue over the wire (spec/protocol-admin.md §19 "phase1-auth-realms"
 * management items): parameters, aliases, result shapes, codes and messages, the §8.4 view.
 */
import { describe, expect, it } from 'vitest';
import { tokenHash } from '../../../broker/auth/auth-state';
import { useBroker } from '../../helpers/broker-harness';
import { adminSettings, manager } from './management-client';

describe('management commands', () => {
  const ctx = useBroker(
    adminSettings(
      { storage_options: { default_ttl: 60 } },
      {
        realms: {
          default: { required: false },
          alpha: { required: true, manager_key: 'alpha-key', key: 'psk', auth_secret: 's' },
        },
        tokens: [
          { token: 'a'.repeat(64), realm: '*', role: 'admin' },
          {
            token: 'alpha-client',
            realm: 'alpha',
            role: 'consumer',
            client_id: 'c1',
            client_name: 'C 1',
          },
        ],
        jwt_secret: 'management-jwt-secret-0123456789abcdefXYZ',
      },
    ),
  );

  it('get: the redacted public view (§8.4)', async () => {
    const m = await manager(ctx.h);
    const { settings } = await m.run({ command: 'get' });
    expect(settings.enabled).toBe(true);
    expect(settings.jwt_secret).toBe('<configured>');
    expect(settings.realms.alpha).toEqual({
      required: true,
      manager_key_configured: true,
      key_configured: true,
      auth_secret_configured: true,
    });
    expect(settings.tokens[1]).toEqual({
      realm: 'alpha',
      role: 'consumer',
      client_id: 'c1',
      client_name: 'C 1',
      token_hash: tokenHash('alpha-client'),
    });
    expect(JSON.stringify(settings)).not.toContain('alpha-client');
    expect(JSON.stringify(settings)).not.toContain('a'.repeat(64));
    expect(settings.persistence.storage).toBe('memory');
    expect(settings.persistence.storage_options.default_ttl).toBe(60);
    expect(settings.namespaces).toEqual({ '/remote': { module: 'built-in' } });
  });

  it('add_realm: permanent by default, ephemeral with ttl/aliases, errors', async () => {
    const m = await manager(ctx.h);
    const permanent = await m.run({ command: 'add_realm', realm: 'p', required: false });
    expect(permanent.settings.realms.p).toEqual({ required: false });
    const before = Date.now();
    const eph = await m.run({ command: 'add_realm', realm: 'e', ephemeral: true, ttl: '2h' });
    expect(eph.settings.realms.e.ephemeral).toBe(true);
    expect(eph.settings.realms.e.expires_at).toBeGreaterThan(before + 3_600_000);
    // The TTL that set it is kept, so a console can show it (issue 22 item 10).
    expect(eph.settings.realms.e.ttl_ms).toBe(7_200_000);
    expect(
      (await m.run({ command: 'add_realm', realm: 't', temporary: true })).settings.realms.t
        .ephemeral,
    ).toBe(true);
    expect(
      (await m.run({ command: 'add_realm', realm: 'b', ttl: 300 })).settings.realms.b.ephemeral,
    ).toBe(true);
    expect(await m.run({ command: 'add_realm', realm: 'x', ttl: 'soonish' })).toEqual({
      ok: false,
      code: 400,
      message: 'invalid ttl — use e.g. 300, "30m", "2h", "7d"',
    });
    expect(await m.run({ command: 'add_realm', realm: 'p' })).toEqual({
      ok: false,
      code: 409,
      message: 'realm already exists',
    });
    expect(await m.run({ command: 'add_realm' })).toEqual({
      ok: false,
      code: 400,
      message: 'realm is required',
    });
    for (const realm of ['*', '__proto__', 'constructor', 'prototype']) {
      expect((await m.run({ command: 'add_realm', realm })).code).toBe(400);
    }
    // Control characters (a newcomer trial created such realms): invisible in lists, and
    // U+0000 is the cluster's pin-field separator. Spaces and slashes stay allowed (§5 sets
    // no rule; MQTT encodes the realm).
    for (const realm of [
      'nul\u0000x',
      'tab\there',
      'bell\u0007',
      'del\u007f',
      'c1\u0085',
      'x'.repeat(257),
    ]) {
      expect(await m.run({ command: 'add_realm', realm })).toEqual({
        ok: false,
        code: 400,
        message: 'invalid realm name',
      });
    }
    expect((await m.run({ command: 'add_realm', realm: 'site a/b', required: false })).ok).toBe(
      true,
    );
    const { settings } = await m.run({ command: 'get' });
    expect(settings.realms.x).toBeUndefined();
    expect(Object.keys(settings.realms)).not.toContain('*');
  });

  it('rename_realm, set_realm_auth and remove_realm', async () => {
    const m = await manager(ctx.h);
    const renamed = await m.run({ command: 'rename_realm', from: 'alpha', to: 'gamma' });
    expect(renamed.settings.realms.alpha).toBeUndefined();
    expect(renamed.settings.realms.gamma.manager_key_configured).toBe(true);
    expect(renamed.settings.tokens[1].realm).toBe('gamma');
    expect((await m.run({ command: 'rename_realm', from: 'default', to: 'z' })).code).toBe(400);
    expect((await m.run({ command: 'rename_realm', from: 'nope', to: 'z' })).code).toBe(404);
    expect((await m.run({ command: 'rename_realm', from: 'gamma', to: 'default' })).code).toBe(400);
    expect(await m.run({ command: 'rename_realm', from: 'gamma' })).toEqual({
      ok: false,
      code: 400,
      message: 'from and to are required',
    });
    const auth = await m.run({ command: 'set_realm_auth', realm: 'open', required: 0 });
    expect(auth.settings.realms.open).toEqual({ required: false });

    expect(await m.run({ command: 'remove_realm', realm: 'nope' })).toEqual({
      ok: false,
      code: 404,
      message: 'realm not found',
    });
    expect(await m.run({ command: 'remove_realm', realm: 'default' })).toEqual({
      ok: false,
      code: 400,
      message: 'cannot remove the "default" realm',
    });
    expect((await m.run({ command: 'remove_realm', realm: '*' })).message).toBe(
      'cannot remove the "*" realm',
    );
    const removed = await m.run({ command: 'remove_realm', realm: 'gamma' });
    expect(removed.removed_tokens).toBe(1);
    expect(removed.disconnected_sockets).toBe(0);
    expect(removed.settings.realms.gamma).toBeUndefined();
    expect(removed.settings.tokens).toHaveLength(1);
  });

  it('set_realm_key / manager key / acceptance / e2ee', async () => {
    const m = await manager(ctx.h);
    const key = await m.run({
      command: 'set_realm_key',
      realm: 'alpha',
      preshared_key: 'new',
      require_key: true,
    });
    expect(key.settings.realms.alpha.key_configured).toBe(true);
    expect(key.settings.realms.alpha.require_key).toBe(true);
    const cleared = await m.run({ command: 'set_realm_key', realm: 'alpha', key: null });
    expect(cleared.settings.realms.alpha.key_configured).toBeUndefined();
    expect((await m.run({ command: 'set_realm_key', realm: 'nope', key: 'k' })).code).toBe(404);
    const mk = await m.run({ command: 'set_realm_manager_key', realm: 'alpha', managerKey: '' });
    expect(mk.settings.realms.alpha.manager_key_configured).toBeUndefined();
    const acc = await m.run({ command: 'set_realm_acceptance', realm: 'newr', required: false });
    expect(acc.settings.realms.newr).toEqual({ require_acceptance: false });
    expect(
      (await m.run({ command: 'set_realm_e2ee', realm: 'alpha', policy: 'required' })).settings
        .realms.alpha.e2ee,
    ).toBe('required');
    expect(
      (await m.run({ command: 'set_realm_e2ee', realm: 'alpha', e2ee: 'off' })).settings.realms
        .alpha.e2ee,
    ).toBeUndefined();
    expect(await m.run({ command: 'set_realm_e2ee', realm: 'alpha', e2ee: 'maybe' })).toEqual({
      ok: false,
      code: 400,
      message: "e2ee must be 'off', 'opportunistic', or 'required'",
    });
  });

  it('set_realm_lifetime: convert, extend, structural realms refused; realm-scoped caps (§9.5)', async () => {
    const m = await manager(ctx.h);
    const eph = await m.run({ command: 'set_realm_lifetime', realm: 'alpha', ttl: '1h' });
    expect(eph.settings.realms.alpha.ephemeral).toBe(true);
    expect(eph.settings.realms.alpha.ttl_ms).toBe(3_600_000);
    const perm = await m.run({ command: 'set_realm_lifetime', realm: 'alpha', ephemeral: false });
    expect(perm.settings.realms.alpha.ephemeral).toBeUndefined();
    expect(perm.settings.realms.alpha.expires_at).toBeUndefined();
    expect(perm.settings.realms.alpha.ttl_ms).toBeUndefined();
    expect(await m.run({ command: 'set_realm_lifetime', realm: 'default' })).toEqual({
      ok: false,
      code: 400,
      message: 'cannot change the lifetime of the "default" realm',
    });
    expect((await m.run({ command: 'set_realm_lifetime', realm: 'nope' })).code).toBe(404);
    expect((await m.run({ command: 'set_realm_lifetime', realm: 'alpha', ttl: '2w' })).code).toBe(
      400,
    );

    await m.run({
      command: 'add_management_token',
      token: 'mt',
      realm_prefix: 'alp',
      ephemeral_only: true,
      max_ttl: '1h',
    });
    const realmKey = await manager(ctx.h, 'alpha-key');
    const capped = await realmKey.run({
      command: 'set_realm_lifetime',
      realm: 'alpha',
      ephemeral: false,
      ttl: '30d',
    });
    expect(capped.settings.realms.alpha.ephemeral).toBe(true);
    const left = capped.settings.realms.alpha.expires_at - Date.now();
    expect(left).toBeGreaterThan(3_500_000);
    expect(left).toBeLessThanOrEqual(3_600_000);
    // The capped TTL, not the one asked for.
    expect(capped.settings.realms.alpha.ttl_ms).toBe(3_600_000);
    const uncapped = await m.run({ command: 'set_realm_lifetime', realm: 'alpha', ttl: '30d' });
    expect(uncapped.settings.realms.alpha.expires_at - Date.now()).toBeGreaterThan(29 * 86_400_000);
  });

  it('management tokens: hash only, duplicates, prefix, revoke', async () => {
    const m = await manager(ctx.h);
    const added = await m.run({
      command: 'add_management_token',
      token: 'one',
      realm_prefix: 'org:',
      maxTtl: '7d',
    });
    expect(added.settings.management_tokens).toEqual([
      { realm_prefix: 'org:', token_hash: tokenHash('one'), max_ttl: '7d' },
    ]);
    await m.run({
      command: 'add_management_token',
      token: 'two',
      realm_prefix: 'team:',
      ephemeralOnly: true,
    });
    expect(
      await m.run({ command: 'add_management_token', token: 'one', realm_prefix: 'x' }),
    ).toEqual({
      ok: false,
      code: 409,
      message: 'management token already exists',
    });
    expect((await m.run({ command: 'add_management_token', token: 'three' })).message).toBe(
      'realm_prefix is required',
    );
    expect((await m.run({ command: 'add_management_token', realm_prefix: 'x' })).message).toBe(
      'token is required',
    );
    expect(
      (
        await m.run({
          command: 'add_management_token',
          token: 't',
          realm_prefix: 'x',
          max_ttl: 'never',
        })
      ).message,
    ).toBe('invalid max_ttl — use e.g. 300, "30m", "2h", "7d"');
    const revoked = await m.run({
      command: 'revoke_management_token',
      token_hash: tokenHash('one'),
    });
    expect(revoked.settings.management_tokens).toEqual([
      { realm_prefix: 'team:', token_hash: tokenHash('two'), ephemeral_only: true },
    ]);
    expect(
      await m.run({ command: 'revoke_management_token', token_hash: tokenHash('one') }),
    ).toEqual({
      ok: false,
      code: 404,
      message: 'management token not found',
    });
    expect((await m.run({ command: 'revoke_management_token' })).message).toBe(
      'token_hash is required',
    );
  });

  it('revoke_token by realm + client_id; admin tokens kept unless allow_admin', async () => {
    const m = await manager(ctx.h);
    expect((await m.run({ command: 'revoke_token' })).message).toBe(
      'token, token_hash, or realm + client_id is required',
    );
    const adminHash = tokenHash('a'.repeat(64));
    expect(await m.run({ command: 'revoke_token', token_hash: adminHash })).toEqual({
      ok: false,
      code: 404,
      message: 'matching revocable token not found',
    });
    const r = await m.run({ command: 'revoke_token', realm: 'alpha', clientId: 'c1' });
    expect(r.revoked).toEqual([
      {
        realm: 'alpha',
        role: 'consumer',
        client_id: 'c1',
        client_name: 'C 1',
        token_hash: tokenHash('alpha-client'),
      },
    ]);
    expect(r.settings.tokens).toHaveLength(1);
  });

  it('set_external_auth: global, realm and prefix scopes (§8.3), URL credentials redacted', async () => {
    const m = await manager(ctx.h);
    const g = await m.run({
      command: 'set_external_auth',
      auth_url: 'https://user:pw@auth.example/check',
      auth_secret: 'sec',
    });
    expect(g.settings.auth_url).toBe('https://user:%3Credacted%3E@auth.example/check');
    expect(g.settings.auth_secret).toBe('<configured>');
    const kept = await m.run({ command: 'set_external_auth', auth_url: 'https://auth.example/v2' });
    expect(kept.settings.auth_secret).toBe('<configured>');
    expect((await m.run({ command: 'set_external_auth', auth_url: 'not a url' })).message).toBe(
      'auth_url must be a valid URL',
    );
    const cleared = await m.run({ command: 'set_external_auth', auth_url: '', auth_secret: '' });
    expect(cleared.settings.auth_url).toBeUndefined();
    expect(cleared.settings.auth_secret).toBeUndefined();

    const realm = await m.run({
      command: 'set_external_auth',
      realm: 'alpha',
      auth_url: 'https://a.example/',
      auth_secret: 'x',
    });
    expect(realm.settings.realms.alpha.auth_url).toBe('https://a.example/');
    expect(realm.settings.realms.alpha.auth_secret_configured).toBe(true);
    expect(
      (await m.run({ command: 'set_external_auth', realm: 'nope', auth_url: 'https://a/' })).code,
    ).toBe(404);
    expect(
      (
        await m.run({
          command: 'set_external_auth',
          realm: 'alpha',
          realm_prefix: 'a',
          auth_url: 'https://a/',
        })
      ).message,
    ).toBe('pass either realm or realm_prefix, not both');
    const prefix = await m.run({
      command: 'set_external_auth',
      realm_prefix: 'org:',
      auth_url: 'https://p.example/',
      auth_secret: 'ps',
    });
    expect(prefix.settings.external_validators).toEqual([
      { realm_prefix: 'org:', auth_url: 'https://p.example/', auth_secret_configured: true },
    ]);
    const gone = await m.run({ command: 'set_external_auth', realm_prefix: 'org:', auth_url: '' });
    expect(gone.settings.external_validators).toEqual([]);
    const realmGone = await m.run({ command: 'set_external_auth', realm: 'alpha' });
    expect(realmGone.settings.realms.alpha.auth_url).toBeUndefined();
    expect(realmGone.settings.realms.alpha.auth_secret_configured).toBeUndefined();
  });

  it('set_persistence and set_global_auth', async () => {
    const m = await manager(ctx.h);
    const mem = await m.run({ command: 'set_persistence', storage: 'MEMORY', default_ttl: 12 });
    expect(mem.settings.persistence).toEqual({
      storage: 'memory',
      storage_options: { default_ttl: 12 },
    });
    const redis = await m.run({
      command: 'set_persistence',
      backend: 'redis',
      url: 'redis://:hunter2@cache:6379/0',
      prefix: 'p',
      default_ttl: 5,
    });
    expect(redis.settings.persistence.storage).toBe('redis');
    expect(redis.settings.persistence.storage_options).toEqual({
      default_ttl: 5,
      url: 'redis://:%3Credacted%3E@cache:6379/0',
      prefix: 'p',
    });
    expect((await m.run({ command: 'set_persistence', storage: 'custom' })).message).toBe(
      'custom storage requires a module path',
    );
    expect(
      (await m.run({ command: 'set_persistence', storage: 'custom', module: './x.js' })).code,
    ).toBe(403);
    expect((await m.run({ command: 'set_persistence', storage: 'floppy' })).message).toBe(
      'unsupported storage backend',
    );
    // Note 7-B: an unknown fallback name is refused when set, not at the next probe.
    const floppy = { command: 'set_persistence', storage: 'redis', storage_options: {} };
    expect(await m.run({ ...floppy, storage_options: { fallback: 'floppy' } })).toMatchObject({
      ok: false,
      code: 400,
      message: 'unsupported storage backend',
    });
    expect((await m.run({ command: 'set_persistence', default_ttl: '12' })).message).toBe(
      'default_ttl must be a number',
    );
    expect((await m.run({ command: 'set_global_auth', enabled: false })).settings.enabled).toBe(
      false,
    );
    expect(await m.run({ command: 'reload_settings' })).toEqual({
      ok: false,
      code: 400,
      message: 'No settings file is being watched',
    });
  });
});
