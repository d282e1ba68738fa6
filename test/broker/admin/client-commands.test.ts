/**
 * `client_detail` and `close_client` (issue 27; docs/management.md "Client detail and control")
 * on a real broker with real socket.io and MQTT.js clients: the detail fields (address behind a
 * trusted proxy, transport, realm, role, what admitted it, counters), the history (auth failure,
 * rate limit, disconnect reason), closing exactly one connection, and the realm scope.
 */
import { io, type Socket as IoSocket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import type { ClientDetail } from '../../../shared/client-detail';
import { SignedAction } from '../../../shared/admin-signature';
import {
  ADMIN_TOKEN,
  authenticate,
  producerIn,
  signedCall,
  useAuthBroker,
} from '../../helpers/auth-clients';
import { produce, sync, type Harness } from '../../helpers/broker-harness';
import { connackCode, mqttClient, mqttConnecting } from '../../helpers/mqtt-clients';
import { waitFor, waitUntil, waitUntilAsync } from '../../helpers/wait';

const TOKEN = 'fleet-both-token-5d1a';
const KEY = 'fleet-psk-77c3';
const FLEET_MANAGER = 'fleet-manager-key-31b9';
const LAB_MANAGER = 'lab-manager-key-0e42';
const ctx = useAuthBroker(
  {
    tokens: [
      { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
      { token: TOKEN, realm: 'fleet', role: 'both' },
    ],
    realms: {
      fleet: { key: KEY, manager_key: FLEET_MANAGER },
      lab: { manager_key: LAB_MANAGER },
    },
  },
  {
    mqtt: { enabled: true, port: 0 },
    limits: { trust_proxy: true, messages_per_second: 1, message_burst: 2 },
  },
);

const command = (h: Harness, body: Record<string, unknown>, secret = ADMIN_TOKEN) =>
  signedCall(h, SignedAction.AUTH_MANAGEMENT_COMMAND, secret, body);

async function detail(h: Harness, realm: string, clientId: string): Promise<ClientDetail> {
  const reply = await command(h, { command: 'client_detail', realm, client_id: clientId });
  expect(reply).toMatchObject({ ok: true, realm, client_id: clientId });
  return reply.client as ClientDetail;
}

const kinds = (d: ClientDetail) => d.history.map((e) => e.kind);

/** A socket.io client behind a (loopback, hence trusted) proxy that names `forwardedFor`. */
async function proxied(h: Harness, forwardedFor: string): Promise<IoSocket> {
  const s = io(h.url, {
    transports: ['websocket'],
    reconnection: false,
    extraHeaders: { 'x-forwarded-for': forwardedFor },
  });
  h.onClose(() => void s.close());
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
  return s;
}

describe('client_detail / close_client', () => {
  it('socket.io: detail fields and history; close_client closes exactly that client', async () => {
    const { h } = ctx;
    const viaProxy = await proxied(h, '203.0.113.7');
    expect(await authenticate(viaProxy as never, { token: 'not-a-token' })).toMatchObject({
      event: 'AUTH_FAIL',
    });
    expect(await authenticate(viaProxy as never, { token: TOKEN })).toMatchObject({
      event: 'AUTH_OK',
    });
    const proxiedId = viaProxy.id!;
    const first = await detail(h, 'fleet', proxiedId);
    expect(first).toMatchObject({
      protocol: 'socket.io',
      transport: 'websocket',
      realm: 'fleet',
      ip: '203.0.113.7',
      role: 'both',
      admitted_by: 'token',
      online: true,
      disconnected_at: null,
    });
    expect(kinds(first)).toEqual(['connect', 'auth_fail', 'auth_ok']);
    expect(first.history[1]!.detail).toBe('Invalid authentication token');
    expect(JSON.stringify(first)).not.toContain(TOKEN);

    const p = await producerIn(h, { token: TOKEN }, 'P');
    for (let i = 0; i < 6; i++) produce(p, 'P', 'job', i);
    await sync(p);
    const pid = p.id!;
    const flooded = await detail(h, 'fleet', pid);
    expect(flooded.names).toEqual(['P']);
    expect(flooded.messages_in).toBeGreaterThanOrEqual(8);
    expect(flooded.bytes_in).toBeGreaterThan(0);
    expect(flooded.messages_out).toBeGreaterThan(0);
    const limited = flooded.history.find((e) => e.kind === 'rate_limited');
    expect(limited).toMatchObject({ detail: 'messages_per_second' });
    expect(limited!.count ?? 1).toBeGreaterThanOrEqual(1);

    // A manager of another realm is refused; the realm's own manager may close it.
    const foreign = await command(
      h,
      { command: 'close_client', realm: 'fleet', client_id: pid },
      LAB_MANAGER,
    );
    expect(foreign).toMatchObject({ ok: false, code: 401 });
    expect(p.connected).toBe(true);
    const gone = waitFor<string>(p, 'disconnect');
    const closed = await command(
      h,
      { command: 'close_client', realm: 'fleet', client_id: pid },
      FLEET_MANAGER,
    );
    expect(closed).toMatchObject({ ok: true, protocol: 'socket.io' });
    expect(await gone).toBe('io server disconnect');
    expect(viaProxy.connected).toBe(true);
    const after = await detail(h, 'fleet', pid);
    expect(after).toMatchObject({
      online: false,
      disconnect_reason: 'closed by manager of realm fleet',
    });
    expect(kinds(after).slice(-2)).toEqual(['closed_by_manager', 'disconnect']);
    const again = await command(h, { command: 'close_client', realm: 'fleet', client_id: pid });
    expect(again).toMatchObject({ ok: false, code: 409 });

    viaProxy.disconnect();
    await waitUntilAsync(
      async () => !(await detail(h, 'fleet', proxiedId)).online,
      'the broker saw proxiedId close',
    );
    expect((await detail(h, 'fleet', proxiedId)).disconnect_reason).toBe(
      'client namespace disconnect',
    );
    expect(
      await command(h, { command: 'client_detail', realm: 'fleet', client_id: 'nope' }),
    ).toMatchObject({ ok: false, code: 404 });
  });

  it('MQTT: detail, refused CONNECT kept, DISCONNECT 0x98 on 5.0, close on 3.1.1', async () => {
    const { h } = ctx;
    expect(
      await connackCode(h, { clientId: 'bad-1', username: 'fleet', password: 'wrong' }),
    ).not.toBe(0);
    await waitUntilAsync(
      async () => !(await detail(h, 'fleet', 'bad-1')).online,
      'the broker saw bad-1 close',
    );
    const refused = await detail(h, 'fleet', 'bad-1');
    expect(kinds(refused)).toEqual(['connect', 'auth_fail', 'disconnect']);
    expect(refused.disconnect_reason).toBe('authentication failed');

    const v5 = await mqttClient(h, {
      clientId: 'dev-5',
      username: 'fleet',
      password: TOKEN,
      protocolVersion: 5,
    });
    const v4 = await mqttClient(h, { clientId: 'dev-4', username: 'fleet', password: KEY });
    await v4.subscribeAsync('jobs/#');
    const received = new Promise<void>((resolve) => v4.once('message', () => resolve()));
    await v5.publishAsync('jobs/1', 'hello', { qos: 1 });
    await received;
    const d5 = await detail(h, 'fleet', 'dev-5');
    expect(d5).toMatchObject({
      protocol: 'mqtt',
      transport: 'tcp',
      realm: 'fleet',
      role: 'both',
      admitted_by: 'token',
      username: 'fleet',
      protocol_version: 5,
      messages_in: 1,
      online: true,
    });
    expect(d5.ip).toMatch(/127\.0\.0\.1/);
    expect(d5.bytes_in).toBeGreaterThan(0);
    const d4 = await detail(h, 'fleet', 'dev-4');
    expect(d4).toMatchObject({ admitted_by: 'key', role: 'consumer', messages_out: 1 });

    const disconnect = new Promise<number | undefined>((resolve) =>
      v5.once('disconnect', (packet) => resolve(packet.reasonCode)),
    );
    expect(
      await command(h, { command: 'close_client', realm: 'fleet', client_id: 'dev-5' }),
    ).toMatchObject({ ok: true, protocol: 'mqtt' });
    expect(await disconnect).toBe(0x98);
    expect(v4.connected).toBe(true);
    await waitUntilAsync(
      async () => !(await detail(h, 'fleet', 'dev-5')).online,
      'the broker saw dev-5 close',
    );
    expect(kinds(await detail(h, 'fleet', 'dev-5')).slice(-2)).toEqual([
      'closed_by_manager',
      'disconnect',
    ]);

    const closed4 = new Promise<void>((resolve) => v4.once('close', () => resolve()));
    expect(
      await command(h, { command: 'close_client', realm: 'fleet', client_id: 'dev-4' }),
    ).toMatchObject({ ok: true });
    await closed4;
    expect((await detail(h, 'fleet', 'dev-4')).disconnect_reason).toBe('closed by admin');
    // Another realm's manager cannot even read it.
    expect(
      await command(
        h,
        { command: 'client_detail', realm: 'fleet', client_id: 'dev-4' },
        LAB_MANAGER,
      ),
    ).toMatchObject({ ok: false, code: 401 });
  });

  it('MQTT: block_seconds refuses the same client id until the block ends', async () => {
    const { h } = ctx;
    const creds = { username: 'fleet', password: TOKEN, protocolVersion: 5 as const };
    const flooder = await mqttClient(h, { clientId: 'flood-1', ...creds });
    const closed = new Promise<void>((resolve) => flooder.once('close', () => resolve()));
    const reply = await command(h, {
      command: 'close_client',
      realm: 'fleet',
      client_id: 'flood-1',
      block_seconds: 60,
    });
    expect(reply).toMatchObject({ ok: true, protocol: 'mqtt' });
    const until = Date.parse(reply.blocked_until as string);
    expect(until).toBeGreaterThan(Date.now() + 50_000);
    await closed;
    flooder.end(true);

    // The device reconnects at once: refused (0x87), the refusal in its history; another id is not.
    expect(await connackCode(h, { clientId: 'flood-1', ...creds })).toBe(0x87);
    await waitUntilAsync(
      async () => (await detail(h, 'fleet', 'flood-1')).history.some((e) => e.kind === 'auth_fail'),
      'the refused reconnect recorded',
    );
    const history = (await detail(h, 'fleet', 'flood-1')).history;
    expect(history.find((e) => e.kind === 'auth_fail')?.detail).toMatch(
      /blocked by a manager until/,
    );
    expect(await connackCode(h, { clientId: 'flood-2', ...creds })).toBe(0);

    // Bad values, and socket.io clients (a new id at every connect), are refused.
    const other = await mqttClient(h, { clientId: 'flood-3', ...creds });
    for (const block_seconds of [-1, 1.5, 86_401, 'soon']) {
      expect(
        await command(h, {
          command: 'close_client',
          realm: 'fleet',
          client_id: 'flood-3',
          block_seconds,
        }),
      ).toMatchObject({ ok: false, code: 400 });
    }
    expect(other.connected).toBe(true);
    await other.endAsync();
    const io = await producerIn(h, { token: TOKEN }, 'io-prod');
    const ioDetail = await command(h, {
      command: 'close_client',
      realm: 'fleet',
      client_id: io.id,
      block_seconds: 60,
    });
    expect(ioDetail).toMatchObject({
      ok: false,
      code: 400,
      message: expect.stringContaining('MQTT clients'),
    });
    io.disconnect();
  });
  it('MQTT: block_seconds on a client id with nothing connected still blocks it; without, 409', async () => {
    const { h } = ctx;
    const creds = { username: 'fleet', password: TOKEN, protocolVersion: 5 as const };
    const gone = await mqttClient(h, { clientId: 'gone-1', ...creds });
    await gone.endAsync();
    await waitUntilAsync(
      async () => !(await detail(h, 'fleet', 'gone-1')).online,
      'the broker saw gone-1 leave',
    );
    const close = { command: 'close_client', realm: 'fleet', client_id: 'gone-1' };
    expect(await command(h, close)).toMatchObject({
      ok: false,
      code: 409,
      message: 'client is not connected',
    });
    const reply = await command(h, { ...close, block_seconds: 60 });
    expect(reply).toMatchObject({
      ok: true,
      protocol: 'mqtt',
      connected: false,
      message: expect.stringContaining('not connected'),
    });
    expect(Date.parse(reply.blocked_until as string)).toBeGreaterThan(Date.now() + 50_000);
    expect(await connackCode(h, { clientId: 'gone-1', ...creds })).toBe(0x87);
  });

  it('MQTT: a device in a reconnect loop is refused once close_client blocks it', async () => {
    const { h } = ctx;
    // A stock MQTT.js client that drops its connection as soon as it is up, and reconnects.
    const device = mqttConnecting(h, {
      clientId: 'loop-1',
      username: 'fleet',
      password: TOKEN,
      protocolVersion: 5,
      reconnectPeriod: 50,
    });
    let connects = 0;
    device.on('connect', () => {
      connects++;
      device.stream.destroy();
    });
    const refused = new Promise<number>((resolve) =>
      device.on('error', (err: Error & { code?: number }) => {
        if (typeof err.code === 'number') resolve(err.code);
      }),
    );
    await waitUntil(() => connects >= 3, 'the device reconnected a few times');
    // Connected or between two attempts: either way the block holds from now on.
    const reply = await command(h, {
      command: 'close_client',
      realm: 'fleet',
      client_id: 'loop-1',
      block_seconds: 60,
    });
    expect(reply).toMatchObject({ ok: true, protocol: 'mqtt', blocked_until: expect.any(String) });
    expect(await refused).toBe(0x87);
    await device.endAsync(true);
    const history = (await detail(h, 'fleet', 'loop-1')).history;
    expect(history.some((e) => /blocked by a manager until/.test(e.detail ?? ''))).toBe(true);
  });
});
