/**
 * `set_realm_require_key` (Switchboard, issue 27; docs/management.md "Requiring the pre-shared
 * key"): the requirement changes and the key stays. §8.2's `set_realm_key` changes `require_key`
 * only together with the key, so the console turned "require key" off by rotating the key; with
 * this command the old key admits a consumer again once the requirement is back on.
 */
import { describe, expect, it } from 'vitest';
import { SignedAction } from '../../../shared/admin-signature';
import { ADMIN_TOKEN, authenticate, signedCall, useAuthBroker } from '../../helpers/auth-clients';
import type { Harness } from '../../helpers/broker-harness';

const KEY = 'fleet-psk-5d2a';
const MANAGER_KEY = 'fleet-manager-key-71c0';
const ctx = useAuthBroker({
  tokens: [{ token: ADMIN_TOKEN, realm: '*', role: 'admin' }],
  realms: {
    fleet: { key: KEY, require_key: true, manager_key: MANAGER_KEY },
    lab: { key: 'lab-psk-0000' },
  },
});

const command = (h: Harness, body: Record<string, unknown>, secret = ADMIN_TOKEN) =>
  signedCall(h, SignedAction.AUTH_MANAGEMENT_COMMAND, secret, body);
const withKey = async (h: Harness, key = KEY) =>
  (await authenticate(await h.connect(), { realm: 'fleet', role: 'consumer', key })).event;
const fleet = async (h: Harness) =>
  ((await command(h, { command: 'get' })).settings as { realms: Record<string, unknown> }).realms
    .fleet;

describe('set_realm_require_key', () => {
  it('turns the requirement off and on and keeps the key: the old key admits again', async () => {
    const { h } = ctx;
    expect(await withKey(h)).toBe('AUTH_OK');
    const off = await command(h, {
      command: 'set_realm_require_key',
      realm: 'fleet',
      require_key: false,
    });
    expect(off).toMatchObject({ ok: true });
    expect(await fleet(h)).toMatchObject({ key_configured: true, require_key: false });
    const on = await command(h, {
      command: 'set_realm_require_key',
      realm: 'fleet',
      requireKey: true,
    });
    expect(on).toMatchObject({ ok: true });
    expect(await fleet(h)).toMatchObject({ key_configured: true, require_key: true });
    // The same key as before: no rotation happened on the way.
    expect(await withKey(h)).toBe('AUTH_OK');
    expect(await withKey(h, 'not-the-key')).toBe('AUTH_FAIL');
  });

  it('is a realm manager key’s for its own realm only', async () => {
    const { h } = ctx;
    const body = { command: 'set_realm_require_key', require_key: false };
    expect(await command(h, { ...body, realm: 'fleet' }, MANAGER_KEY)).toMatchObject({
      ok: true,
      realm: 'fleet',
    });
    expect(await command(h, { ...body, realm: 'lab' }, MANAGER_KEY)).toMatchObject({
      ok: false,
      code: 401,
    });
  });

  it('refuses a missing or non-boolean require_key and an unknown realm, changing nothing', async () => {
    const { h } = ctx;
    for (const require_key of [undefined, 'false', 0, null]) {
      expect(
        await command(h, { command: 'set_realm_require_key', realm: 'fleet', require_key }),
      ).toEqual({ ok: false, code: 400, message: 'require_key must be true or false' });
    }
    expect(
      await command(h, { command: 'set_realm_require_key', realm: 'nope', require_key: true }),
    ).toMatchObject({ ok: false, code: 404, message: 'realm not found' });
    expect(await command(h, { command: 'set_realm_require_key', require_key: true })).toMatchObject(
      {
        ok: false,
        code: 400,
      },
    );
    expect(await fleet(h)).toMatchObject({ key_configured: true, require_key: true });
    expect(await withKey(h)).toBe('AUTH_OK');
  });
});
