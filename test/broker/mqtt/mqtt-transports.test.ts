/**
 * MQTT over WebSocket (`mqtt.ws_port`, `mqtt.ws_path`) and over TLS (`mqtt.tls`) (issue 14).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { produce, startBroker, type Harness } from '../../helpers/broker-harness';
import { nextMessage } from '../../helpers/mqtt-clients';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let h: Harness | undefined;
let tmp: TempDir | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await tmp?.remove();
  tmp = undefined;
});

describe('MQTT transports', () => {
  it.each([4, 5] as const)(
    'serves MQTT (version %i) over WebSocket on ws_port at ws_path, bridged to tyo-mq',
    async (protocolVersion) => {
      h = await startBroker({ mqtt: { enabled: true, port: 0, ws_port: 0, ws_path: '/mq' } });
      const wsPort = h.broker.status().mqttWsPort;
      expect(wsPort).toBeGreaterThan(0);
      const client = await connectAsync(`ws://127.0.0.1:${wsPort}/mq`, {
        reconnectPeriod: 0,
        protocolVersion,
      });
      h.onClose(() => client.endAsync(true));
      await client.subscribeAsync('ws/#');
      const got = nextMessage(client);
      const p = await h.producer('app');
      produce(p, 'app', 'ws/1', { over: 'ws' });
      expect(JSON.parse((await got).text)).toEqual({ over: 'ws' });
    },
  );

  it.each([4, 5] as const)(
    'speaks TLS (MQTT version %i) on the MQTT port when mqtt.tls is set',
    async (protocolVersion) => {
      tmp = await makeTempDir();
      const key = join(tmp.path, 'key.pem');
      const cert = join(tmp.path, 'cert.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-keyout',
          key,
          '-out',
          cert,
        ],
        { stdio: 'ignore' },
      );
      h = await startBroker({ mqtt: { enabled: true, port: 0, tls: { key, cert } } });
      const port = h.broker.status().mqttPort;
      const client = await connectAsync(`mqtts://127.0.0.1:${port}`, {
        reconnectPeriod: 0,
        protocolVersion,
        ca: readFileSync(cert),
        servername: 'localhost',
        rejectUnauthorized: true,
      });
      h.onClose(() => client.endAsync(true));
      await client.subscribeAsync('tls/x', { qos: 1 });
      const got = nextMessage(client);
      await client.publishAsync('tls/x', 'secure', { qos: 1 });
      expect((await got).text).toBe('secure');
    },
  );
});
