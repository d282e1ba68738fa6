/**
 * The console's MQTT publisher (issue 27, electron/services/mqtt-publisher.ts) against the
 * console's real local broker (auth on, MQTT on a free port) with stock MQTT.js subscribers:
 * a QoS 1 retained MQTT 5 publish arrives with its properties and stays retained; QoS 2 and
 * MQTT 3.1.1 work; a realm that needs a token gets a temporary one, revoked afterwards; a
 * refused password is `SWB_ERR_UNAUTHORIZED`; bad payloads and 3.1.1 properties are refused
 * before anything is sent; Activity records the publish without its payload.
 */
import path from 'node:path';
import { connectAsync, type IPublishPacket, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { ManagerClient } from '../../electron/services/manager-client';
import { publishMqtt } from '../../electron/services/mqtt-publisher';
import { openRealmSocket } from '../../electron/services/realm-access';
import { FileSecretStore, LOCAL_ADMIN_TOKEN_SECRET } from '../../electron/services/secret-store';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import {
  MqttPublishInputSchema,
  type MqttPublishInput,
} from '../../shared/console-api-mqtt-publish';
import type { SwitchboardError } from '../../shared/error-catalogue';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const connectionId = LOCAL_CONNECTION_ID;

/** The input with its defaults filled in, as the console's transports hand it on. */
const full = (input: MqttPublishInput) => MqttPublishInputSchema.parse(input);

describe('the console MQTT publisher on the real local broker', () => {
  let dir: TempDir;
  let local: LocalConsole;
  let manager: ManagerClient;
  let adminToken: string;
  let mqttUrl = '';
  const clients: MqttClient[] = [];

  /** An MQTT 5 subscriber in `realm` (admin token as password) and the packets it gets. */
  const subscriber = async (realm: string, filter: string) => {
    const client = await connectAsync(mqttUrl, {
      protocolVersion: 5,
      username: realm,
      password: adminToken,
      reconnectPeriod: 0,
    });
    clients.push(client);
    const got: IPublishPacket[] = [];
    client.on('message', (_topic, _payload, packet) => got.push(packet));
    await client.subscribeAsync(filter, { qos: 2 });
    return got;
  };

  const failure = (promise: Promise<unknown>): Promise<SwitchboardError> =>
    promise.then(
      () => {
        throw new Error('expected a failure');
      },
      (error: SwitchboardError) => error,
    );

  beforeAll(async () => {
    dir = await makeTempDir();
    const dataDir = path.join(dir.path, 'data');
    local = createLocalConsole({ brokerPort: 0, mqttPort: 0, dataDir, pollIntervalMs: 200 });
    const status = await local.startBroker();
    mqttUrl = `mqtt://127.0.0.1:${status.mqttPort}`;
    adminToken = new FileSecretStore(dataDir).get(LOCAL_ADMIN_TOKEN_SECRET) as string;
    manager = new ManagerClient({ url: `http://127.0.0.1:${status.port}`, secret: adminToken });
    await manager.command({ command: 'add_realm', realm: 'plant', manager_key: 'mk-plant-1234' });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.endAsync(true);
    manager.close();
    await local.close();
    await dir.remove();
  }, 30_000);

  it('publishes QoS 1, retained, with MQTT 5 properties, into a protected realm', async () => {
    const got = await subscriber('plant', 'line/+/state');
    const result = await local.service.publishMqtt(
      full({
        connectionId,
        realm: 'plant',
        topic: 'line/1/state',
        payload: '{"speed": 12}',
        format: 'json',
        qos: 1,
        retain: true,
        properties: {
          responseTopic: 'line/1/reply',
          correlationData: 'req-42',
          messageExpirySeconds: 600,
          userProperties: [
            { key: 'site', value: 'north' },
            { key: 'site', value: 'south' },
          ],
        },
      }),
    );
    expect(result).toMatchObject({
      realm: 'plant',
      topic: 'line/1/state',
      qos: 1,
      retain: true,
      bytes: 13,
      acknowledged: true,
      endpoint: mqttUrl,
      admittedAs: 'admin',
    });
    await expect.poll(() => got.length).toBe(1);
    const packet = got[0]!;
    expect(packet.payload.toString()).toBe('{"speed": 12}');
    expect(packet.properties).toMatchObject({
      contentType: 'application/json',
      payloadFormatIndicator: true,
      responseTopic: 'line/1/reply',
      userProperties: { site: ['north', 'south'] },
    });
    expect(packet.properties?.correlationData?.toString()).toBe('req-42');

    // Retained: a later subscriber gets it with the retain flag.
    const late = await subscriber('plant', 'line/1/state');
    await expect.poll(() => late.length).toBe(1);
    expect(late[0]!.retain).toBe(true);

    // Recorded in Activity, without the payload.
    const entry = (
      await local.service.listActivity({
        connectionId,
        actions: ['console_mqtt_publish'],
        limit: 1,
      })
    ).entries[0];
    expect(entry).toMatchObject({
      action: 'console_mqtt_publish',
      params: { realm: 'plant', topic: 'line/1/state', qos: 1, retain: true },
    });
    expect(JSON.stringify(entry)).not.toContain('speed');
  });

  it('publishes QoS 2 bytes over MQTT 3.1.1 and QoS 0 text', async () => {
    const got = await subscriber('default', 'raw/#');
    const bytes = await local.service.publishMqtt(
      full({
        connectionId,
        realm: 'default',
        topic: 'raw/bytes',
        payload: '3q2+7w==',
        format: 'base64',
        qos: 2,
        protocolVersion: 4,
      }),
    );
    expect(bytes).toMatchObject({ qos: 2, bytes: 4, acknowledged: true });
    const text = await local.service.publishMqtt(
      full({ connectionId, realm: 'default', topic: 'raw/text', payload: 'hello' }),
    );
    expect(text).toMatchObject({ qos: 0, acknowledged: false });
    await expect.poll(() => got.map((p) => p.topic).sort()).toEqual(['raw/bytes', 'raw/text']);
    expect([...got.find((p) => p.topic === 'raw/bytes')!.payload]).toEqual([
      0xde, 0xad, 0xbe, 0xef,
    ]);
  });

  it('gets a temporary token for a realm without the admin token, and revokes it', async () => {
    const got = await subscriber('plant', 'temp/+');
    const status = local.supervisor.status();
    const profile = local.connections.profile(connectionId);
    const opened: string[] = [];
    const result = await publishMqtt(
      {
        profile,
        manager,
        adminToken: null,
        openTemporary: async (realm) => {
          const socket = await openRealmSocket({
            url: `http://127.0.0.1:${status.port}`,
            realm,
            manager,
            adminToken: null,
            clientName: 'Switchboard console publisher',
          });
          opened.push(socket.tokenHash ?? '');
          return socket;
        },
      },
      { connectionId, realm: 'plant', topic: 'temp/1', payload: 'x', qos: 1 },
    );
    expect(result.admittedAs).toBe('temporary');
    await expect.poll(() => got.length).toBe(1);
    // The token is gone once the publish is done.
    const settings = (await manager.command({ command: 'get' })).settings as {
      tokens?: { token_hash?: string }[];
    };
    expect(opened).toHaveLength(1);
    expect((settings.tokens ?? []).map((t) => t.token_hash)).not.toContain(opened[0]);
  });

  it('says unauthorized when the broker refuses the password', async () => {
    const error = await failure(
      publishMqtt(
        {
          profile: local.connections.profile(connectionId),
          manager,
          adminToken: 'not-the-admin-token',
          openTemporary: () => Promise.reject(new Error('not used')),
        },
        { connectionId, realm: 'plant', topic: 'x/1', payload: 'x', qos: 1 },
      ),
    );
    expect(error.code).toBe('SWB_ERR_UNAUTHORIZED');
  });

  it('refuses bad payloads, 3.1.1 properties, wildcards and realm * before sending', async () => {
    const publish = (input: Record<string, unknown>) =>
      failure(
        local.service.publishMqtt({
          connectionId,
          realm: 'default',
          topic: 'bad/1',
          payload: 'x',
          ...input,
        } as Parameters<typeof local.service.publishMqtt>[0]),
      );
    expect((await publish({ format: 'json', payload: '{nope' })).message).toMatch(/not valid JSON/);
    expect((await publish({ format: 'base64', payload: '@@@' })).message).toMatch(/base64/);
    expect(
      (await publish({ protocolVersion: 4, properties: { contentType: 'text/plain' } })).message,
    ).toMatch(/3\.1\.1 has no PUBLISH properties/);
    expect((await publish({ topic: 'bad/#' })).message).toMatch(/wildcards/);
    expect((await publish({ realm: '*' })).message).toMatch(/not "\*"/);
  });
});
