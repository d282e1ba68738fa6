/**
 * Sessions end with their credentials on every node (issue 20 defect 2): a realm's manager key
 * or pre-shared key rotated on node A ends, on node B, the sessions (socket.io and MQTT) that
 * key admitted there — through the settings sync, which hands B the new auth block — and no
 * other session.
 */
import type { MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SignedAction } from '../../shared/admin-signature';
import { ServerEvent } from '../../shared/protocol-events';
import { ADMIN_TOKEN, hs256, loggedIn, signedCall } from '../helpers/auth-clients';
import { waitForServerDisconnect, type Harness } from '../helpers/broker-harness';
import { freshPrefix, startAuthNode, type AuthNodeOptions } from '../helpers/cluster-auth-nodes';
import { mqttClient } from '../helpers/mqtt-clients';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { expectNothing, waitFor, waitUntil } from '../helpers/wait';

const ALPHA_KEY = 'alpha-manager-key-cluster-sessions';
const BETA_KEY = 'beta-manager-key-cluster-sessions';

let redis: RedisServer;
let prefix: string;
let nodes: Harness[] = [];

beforeEach(async () => {
  redis = await startRedisServer();
  prefix = freshPrefix();
  nodes = [];
});
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  await redis.stop();
});

async function node(id: string, opts: AuthNodeOptions = {}): Promise<Harness> {
  const h = await startAuthNode(redis.url, prefix, id, opts);
  nodes.push(h);
  return h;
}

const AUTH = {
  realms: {
    default: { required: false },
    alpha: { manager_key: ALPHA_KEY, key: 'alpha-psk' },
    beta: { manager_key: BETA_KEY },
  },
};
const MQTT = { mqtt: { enabled: true, port: 0 } };

describe('credential rotation across the cluster', () => {
  it("rotating alpha's manager key on A ends alpha's realm-JWT sessions on B, not beta's", async () => {
    const a = await node('node-a', { auth: AUTH });
    const b = await node('node-b', { settings: MQTT });
    const alphaJwt = await hs256(ALPHA_KEY, { realm: 'alpha', role: 'both' });
    const alpha = await loggedIn(b, { token: alphaJwt });
    const beta = await loggedIn(b, {
      token: await hs256(BETA_KEY, { realm: 'beta', role: 'both' }),
    });
    const psk = await loggedIn(b, { realm: 'alpha', role: 'consumer', key: 'alpha-psk' });
    const mqttAlpha: MqttClient = await mqttClient(b, {
      protocolVersion: 5,
      username: 'alpha',
      password: alphaJwt,
    });
    const told = waitFor(alpha, ServerEvent.AUTH_FAIL);
    const gone = waitForServerDisconnect(alpha);
    const mqttGone = new Promise<void>((resolve) => mqttAlpha.once('close', () => resolve()));
    const reply = await signedCall(a, SignedAction.AUTH_MANAGEMENT_COMMAND, ADMIN_TOKEN, {
      command: 'set_realm_manager_key',
      realm: 'alpha',
      manager_key: 'alpha-manager-key-rotated-on-a',
    });
    expect(reply).toMatchObject({ ok: true });
    expect(await told).toEqual({ code: 401, message: 'Credentials changed; authenticate again' });
    expect(await gone).toBe('transport close');
    await mqttGone;
    await expectNothing(beta, 'disconnect');
    expect(beta.connected && psk.connected).toBe(true);
    expect(b.broker.auth.realm('alpha')?.manager_key).toBe('alpha-manager-key-rotated-on-a');
  });

  it('rotating the pre-shared key on A ends the PSK sessions on B', async () => {
    const a = await node('node-a', { auth: AUTH });
    const b = await node('node-b');
    const psk = await loggedIn(b, { realm: 'alpha', role: 'consumer', key: 'alpha-psk' });
    const jwt = await loggedIn(b, {
      token: await hs256(ALPHA_KEY, { realm: 'alpha', role: 'both' }),
    });
    const gone = waitForServerDisconnect(psk);
    expect(
      await signedCall(a, SignedAction.AUTH_MANAGEMENT_COMMAND, ADMIN_TOKEN, {
        command: 'set_realm_key',
        realm: 'alpha',
        key: 'alpha-psk-rotated',
      }),
    ).toMatchObject({ ok: true });
    await gone;
    await waitUntil(
      () => b.broker.auth.realm('alpha')?.key === 'alpha-psk-rotated',
      'B has the key',
    );
    expect(jwt.connected).toBe(true);
  });
});
