/**
 * MQTT.js clients for tests against a harness broker's MQTT listener. Every client made here is
 * ended by the harness' close (registered with `onClose`).
 */
import { connect, connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import type { Harness } from './broker-harness';

/** The bound MQTT port of the harness broker. */
export function mqttPort(h: Harness): number {
  const port = h.broker.status().mqttPort;
  if (port === null) throw new Error('MQTT listener not running (mqtt.enabled)');
  return port;
}

/** A connected MQTT.js client (rejects on a refused CONNACK). */
export async function mqttClient(h: Harness, opts: IClientOptions = {}): Promise<MqttClient> {
  const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort(h)}`, {
    reconnectPeriod: 0,
    connectTimeout: 5_000,
    ...opts,
  });
  h.onClose(() => client.endAsync(true));
  return client;
}

/**
 * An MQTT.js client that is still connecting: listeners attached at once see the CONNACK and
 * every message after it (a persistent session's backlog follows the CONNACK immediately).
 */
export function mqttConnecting(h: Harness, opts: IClientOptions = {}): MqttClient {
  const client = connect(`mqtt://127.0.0.1:${mqttPort(h)}`, {
    reconnectPeriod: 0,
    connectTimeout: 5_000,
    ...opts,
  });
  h.onClose(() => client.endAsync(true));
  return client;
}

/** Resolves with the CONNACK's session-present flag of a connecting client. */
export function sessionPresent(client: MqttClient): Promise<boolean> {
  return new Promise((resolve, reject) => {
    client.once('connect', (ack) => resolve(ack.sessionPresent));
    client.once('error', reject);
  });
}

/** Connects and resolves with the CONNACK code of a refusal (or 0 when accepted). */
export function connackCode(h: Harness, opts: IClientOptions = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const client = connect(`mqtt://127.0.0.1:${mqttPort(h)}`, {
      reconnectPeriod: 0,
      connectTimeout: 5_000,
      ...opts,
    });
    h.onClose(() => client.endAsync(true));
    const timer = setTimeout(() => reject(new Error('no CONNACK within 5 s')), 5_000);
    client.once('connect', () => {
      clearTimeout(timer);
      resolve(0);
    });
    client.once('error', (err: Error & { code?: number }) => {
      clearTimeout(timer);
      if (typeof err.code === 'number') resolve(err.code);
      else reject(err);
    });
  });
}

/** Resolves with the next message `client` receives as `{topic, text, packet}`. */
export function nextMessage(
  client: MqttClient,
  timeoutMs = 3_000,
): Promise<{ topic: string; text: string; retain: boolean; qos: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no MQTT message')), timeoutMs);
    client.once('message', (topic, payload, packet) => {
      clearTimeout(timer);
      resolve({ topic, text: payload.toString('utf8'), retain: packet.retain, qos: packet.qos });
    });
  });
}
