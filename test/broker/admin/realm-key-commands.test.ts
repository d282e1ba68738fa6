/**
 * `realm_keys` (issue 27; docs/management.md "Realm keys for definitions export") on a real
 * broker: the SHA-256 of each realm's pre-shared and manager key, the keys themselves only with
 * `reveal`, for the global admin only — a realm's manager key is refused, even for its own realm
 * (it would learn the realm's other key through `reveal`) — and a bad `reveal` is a 400.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { adminSettings, manager, type Manager } from './management-client';

const ALPHA_MANAGER = 'alpha-manager-key-4c81';
const ALPHA_PSK = 'alpha-psk-77e0';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

let h: Harness;
let m: Manager;

beforeEach(async () => {
  const settings = adminSettings(
    {},
    {
      realms: {
        default: { required: false },
        alpha: { manager_key: ALPHA_MANAGER, key: ALPHA_PSK },
        open: { required: false },
      },
    },
  );
  h = await startBroker(settings as BrokerSettings);
  m = await manager(h);
});

afterEach(async () => {
  await h.close();
});

describe('realm_keys', () => {
  it('answers the hashes of every realm, null where no key is set', async () => {
    const reply = await m.run({ command: 'realm_keys' });
    expect(reply.ok).toBe(true);
    expect(reply.realms.alpha).toEqual({
      key_sha256: sha(ALPHA_PSK),
      manager_key_sha256: sha(ALPHA_MANAGER),
    });
    expect(reply.realms.open).toEqual({ key_sha256: null, manager_key_sha256: null });
    expect(JSON.stringify(reply)).not.toContain(ALPHA_PSK);
  });

  it('reveals the keys to the global admin only', async () => {
    const revealed = await m.run({ command: 'realm_keys', reveal: true });
    expect(revealed.realms.alpha).toMatchObject({ key: ALPHA_PSK, manager_key: ALPHA_MANAGER });
    expect(revealed.realms.open).toMatchObject({ key: null, manager_key: null });
    for (const body of [
      { command: 'realm_keys', realm: 'alpha' },
      { command: 'realm_keys', realm: 'alpha', reveal: true },
    ]) {
      const refused = await m.run(body, ALPHA_MANAGER);
      // §8.1: an admin-only command under a realm key is refused as unauthorized.
      expect(refused).toMatchObject({ ok: false, code: 401 });
      expect(refused).not.toHaveProperty('realms');
      expect(JSON.stringify(refused)).not.toContain(ALPHA_PSK);
    }
  });

  it('refuses a reveal that is not a boolean', async () => {
    expect(await m.run({ command: 'realm_keys', reveal: 'yes' })).toMatchObject({
      ok: false,
      code: 400,
      message: 'reveal must be a boolean',
    });
  });
});
