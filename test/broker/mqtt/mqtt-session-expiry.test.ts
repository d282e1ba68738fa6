/**
 * MQTT sessions end with their credentials (issue 20 defect 2): a client that connected with a
 * JWT is ended within a second after the JWT's `exp` (MQTT 5: DISCONNECT 0x87 with Reason
 * String `token expired`; 3.1.1: closed), and rotating the `jwt_secret` or a realm's pre-shared
 * key ends the clients it admitted (`credentials changed`) and no other.
 */
import type { MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import { hs256, useAuthBroker } from '../../helpers/auth-clients';
import { mqttClient } from '../../helpers/mqtt-clients';
import { expectNothing } from '../../helpers/wait';

const JWT_SECRET = 'mqtt-session-jwt-secret-0123456789abcdefXYZ';
const ALPHA_KEY = 'alpha-manager-key-for-mqtt-sessions';

const ctx = useAuthBroker(
  {
    jwt_secret: JWT_SECRET,
    realms: { alpha: { key: 'alpha-psk', manager_key: ALPHA_KEY }, beta: { key: 'beta-psk' } },
    tokens: [{ token: 'alpha-static', realm: 'alpha', role: 'both' }],
  },
  { mqtt: { enabled: true, port: 0 } },
);

/** How the client's connection ended: the server DISCONNECT (MQTT 5), if any, and when. */
function ending(
  m: MqttClient,
): Promise<{ reasonCode?: number; reasonString?: string; at: number }> {
  let packet: { reasonCode?: number; properties?: { reasonString?: string } } | null = null;
  m.on('disconnect', (p) => {
    packet = p;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('MQTT session not ended within 8 s')), 8_000);
    m.once('close', () => {
      clearTimeout(timer);
      const p = packet as { reasonCode?: number; properties?: { reasonString?: string } } | null;
      resolve({
        reasonCode: p?.reasonCode,
        reasonString: p?.properties?.reasonString,
        at: Date.now(),
      });
    });
  });
}

const nowS = () => Math.floor(Date.now() / 1000);

describe('an MQTT JWT session ends at its exp', () => {
  it('MQTT 5: DISCONNECT 0x87 "token expired" within a second after exp', async () => {
    const exp = nowS() + 2;
    const token = await hs256(JWT_SECRET, { realm: 'alpha', role: 'both' }, exp);
    const m = await mqttClient(ctx.h, { protocolVersion: 5, username: 'alpha', password: token });
    const other = await mqttClient(ctx.h, {
      protocolVersion: 5,
      username: 'alpha',
      password: 'alpha-static',
    });
    const ended = await ending(m);
    expect(ended.at).toBeGreaterThanOrEqual(exp * 1000 - 50);
    expect(ended.at - exp * 1000).toBeLessThan(1_000);
    expect(ended).toMatchObject({ reasonCode: 0x87, reasonString: 'token expired' });
    expect(other.connected).toBe(true);
  });

  it('MQTT 3.1.1: closed within a second after exp (realm manager-key JWT)', async () => {
    const exp = nowS() + 2;
    const token = await hs256(ALPHA_KEY, { realm: 'alpha', role: 'consumer' }, exp);
    const m = await mqttClient(ctx.h, { protocolVersion: 4, username: 'alpha', password: token });
    const ended = await ending(m);
    expect(ended.at - exp * 1000).toBeLessThan(1_000);
    expect(ended.at).toBeGreaterThanOrEqual(exp * 1000 - 50);
  });
});

describe('rotating a secret ends the MQTT clients it admitted', () => {
  it('a new jwt_secret ends JWT clients; a new PSK ends that realm’s PSK clients', async () => {
    const jwt = await mqttClient(ctx.h, {
      protocolVersion: 5,
      username: 'alpha',
      password: await hs256(JWT_SECRET, { realm: 'alpha', role: 'both' }),
    });
    const alphaPsk = await mqttClient(ctx.h, {
      protocolVersion: 5,
      username: 'alpha',
      password: 'alpha-psk',
    });
    const betaPsk = await mqttClient(ctx.h, {
      protocolVersion: 5,
      username: 'beta',
      password: 'beta-psk',
    });
    const staticToken = await mqttClient(ctx.h, {
      protocolVersion: 5,
      username: 'alpha',
      password: 'alpha-static',
    });

    const jwtEnded = ending(jwt);
    ctx.h.broker.auth.update((d) => {
      d.jwt_secret = 'another-mqtt-jwt-secret-9876543210fedcbaQRS';
    }, 'file');
    expect(await jwtEnded).toMatchObject({ reasonCode: 0x87, reasonString: 'credentials changed' });
    await expectNothing(alphaPsk, 'close');
    expect(betaPsk.connected && staticToken.connected).toBe(true);

    const pskEnded = ending(alphaPsk);
    ctx.h.broker.auth.update((d) => {
      d.realms.alpha = { ...d.realms.alpha, key: 'alpha-psk-rotated' };
    }, 'file');
    expect(await pskEnded).toMatchObject({ reasonCode: 0x87, reasonString: 'credentials changed' });
    await expectNothing(betaPsk, 'close');
    expect(staticToken.connected).toBe(true);
  });
});
