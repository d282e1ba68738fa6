/**
 * Sessions after a key rotation and `end_sessions` (issue 22 item 7; docs/management.md
 * "Sessions after a key rotation"): `set_realm_key` reports how many live sessions the rotation
 * ended (those admitted with the old key, which the broker closes), and `end_sessions` ends every
 * session of a realm — each client told why, its transport closed so it can authenticate again.
 */
import { describe, expect, it } from 'vitest';
import { SignedAction } from '../../../shared/admin-signature';
import { ServerEvent } from '../../../shared/protocol-events';
import { ADMIN_TOKEN, authenticate, signedCall, useAuthBroker } from '../../helpers/auth-clients';
import type { Harness, Socket } from '../../helpers/broker-harness';
import { mqttClient } from '../../helpers/mqtt-clients';
import { waitFor } from '../../helpers/wait';

const OLD_KEY = 'fleet-old-psk-8c1e';
const NEW_KEY = 'fleet-new-psk-44b0';
const MANAGER_KEY = 'fleet-manager-key-9a7d';
const TOKEN = 'fleet-consumer-token-21fe';
const ctx = useAuthBroker(
  {
    tokens: [
      { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
      { token: TOKEN, realm: 'fleet', role: 'consumer' },
    ],
    realms: {
      fleet: { key: OLD_KEY, require_key: true, manager_key: MANAGER_KEY },
      lab: { key: 'lab-psk-0000' },
    },
  },
  { mqtt: { enabled: true, port: 0 } },
);

const command = (h: Harness, body: Record<string, unknown>, secret = ADMIN_TOKEN) =>
  signedCall(h, SignedAction.AUTH_MANAGEMENT_COMMAND, secret, body);

async function login(h: Harness, payload: Record<string, unknown>): Promise<Socket> {
  const s = await h.connect();
  expect(await authenticate(s, payload)).toMatchObject({ event: 'AUTH_OK' });
  return s;
}
const ended = (s: Socket) =>
  Promise.all([
    waitFor<{ code: number; message: string }>(s, ServerEvent.AUTH_FAIL),
    waitFor<string>(s, 'disconnect'),
  ]);

describe('sessions of a realm', () => {
  it('a key rotation reports the sessions it ended; they are closed', async () => {
    const { h } = ctx;
    const withKey = await login(h, { realm: 'fleet', role: 'consumer', key: OLD_KEY });
    const withToken = await login(h, { token: TOKEN });
    const device = await mqttClient(h, { username: 'fleet', password: OLD_KEY });
    const deviceGone = new Promise<void>((resolve) => device.once('close', () => resolve()));
    const gone = ended(withKey);
    const reply = await command(h, { command: 'set_realm_key', realm: 'fleet', key: NEW_KEY });
    expect(reply).toMatchObject({ ok: true, ended_sessions: 2 });
    await deviceGone;
    const [fail, reason] = await gone;
    expect(fail).toEqual({ code: 401, message: 'Credentials changed; authenticate again' });
    expect(reason).toBe('transport close');
    expect(withToken.connected).toBe(true);
    // Back with the old key: refused; with the new one: admitted.
    expect(
      await authenticate(await h.connect(), { realm: 'fleet', role: 'consumer', key: OLD_KEY }),
    ).toMatchObject({ event: 'AUTH_FAIL' });
    await login(h, { realm: 'fleet', role: 'consumer', key: NEW_KEY });
    // Nothing used the manager key: its rotation ends nothing.
    expect(
      await command(h, { command: 'set_realm_manager_key', realm: 'fleet', manager_key: 'mk-2' }),
    ).toMatchObject({ ok: true, ended_sessions: 0 });
  });

  it('end_sessions ends every session of the realm and no other', async () => {
    const { h } = ctx;
    const a = await login(h, { realm: 'fleet', role: 'consumer', key: OLD_KEY });
    const b = await login(h, { token: TOKEN });
    const other = await login(h, { realm: 'lab', role: 'consumer', key: 'lab-psk-0000' });
    const device = await mqttClient(h, { username: 'fleet', password: TOKEN });
    const deviceGone = new Promise<void>((resolve) => device.once('close', () => resolve()));
    const endA = ended(a);
    const endB = ended(b);
    expect(await command(h, { command: 'end_sessions', realm: 'fleet' })).toEqual({
      ok: true,
      realm: 'fleet',
      ended_sessions: 3,
    });
    await deviceGone;
    for (const [fail, reason] of [await endA, await endB]) {
      expect(fail).toEqual({
        code: 401,
        message: 'Session ended by a manager; authenticate again',
      });
      expect(reason).toBe('transport close');
    }
    expect(other.connected).toBe(true);
    // The token still holds: the client logs in again at once.
    await login(h, { token: TOKEN });
    expect(await command(h, { command: 'end_sessions' })).toMatchObject({ ok: false, code: 400 });
  });

  it("a realm's manager key may end its own realm's sessions only", async () => {
    const { h } = ctx;
    const a = await login(h, { realm: 'fleet', role: 'consumer', key: OLD_KEY });
    const gone = ended(a);
    expect(
      await command(h, { command: 'end_sessions', realm: 'fleet' }, MANAGER_KEY),
    ).toMatchObject({ ok: true, ended_sessions: 1 });
    await gone;
    expect(await command(h, { command: 'end_sessions', realm: 'lab' }, MANAGER_KEY)).toMatchObject({
      ok: false,
      code: 401,
    });
  });
});
