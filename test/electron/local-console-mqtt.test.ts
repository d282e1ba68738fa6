/**
 * The console's local broker serves MQTT (issue 14): `createLocalConsole({mqttPort})` starts the
 * real broker process with `--mqtt-port`, and an MQTT.js client makes a round trip through it;
 * the console CLI's `--broker-mqtt-port` defaults to 1883 and accepts `off`. The bound MQTT port
 * is in the supervisor's status (from the broker's ready message), stays the same across
 * restarts, and a taken MQTT port is reported as such (not as the socket.io port).
 */
import net from 'node:net';
import path from 'node:path';
import { connectAsync } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { DEFAULT_LOCAL_MQTT_PORT, parseConsoleFlags } from '../../electron/web/cli-flags';
import { PortInUseError } from '../../shared/port-in-use-error';
import { waitUntil } from '../helpers/wait';
import { makeTempDir, type TempDir } from '../support/temp-dir';

let dir: TempDir | undefined;
let local: LocalConsole | undefined;
afterEach(async () => {
  await local?.close();
  await dir?.remove();
  local = dir = undefined;
});

/** The MQTT ports the broker logged (`MQTT listening`), one per start, oldest first. */
function loggedMqttPorts(c: LocalConsole): number[] {
  const ports: number[] = [];
  for (const { line } of c.supervisor.logs()) {
    if (!line.includes('MQTT listening')) continue;
    const port = (JSON.parse(line) as { port?: unknown }).port;
    if (typeof port === 'number') ports.push(port);
  }
  return ports;
}

/** The MQTT port the broker logged first, once it has. */
function loggedMqttPort(c: LocalConsole): number | null {
  return loggedMqttPorts(c)[0] ?? null;
}

describe('MQTT on the console local broker', () => {
  it('starts the local broker with an MQTT listener that clients can use, its port in the status', async () => {
    dir = await makeTempDir();
    local = createLocalConsole({
      brokerPort: 0,
      mqttPort: 0,
      dataDir: path.join(dir.path, 'data'),
      supervisor: { env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'info' } },
    });
    const status = await local.startBroker();
    await waitUntil(() => loggedMqttPort(local!) !== null, 'MQTT listening logged');
    // The port the broker bound travels in its ready message, not only in its logs.
    expect(status.mqttPort).toBe(loggedMqttPort(local));
    expect(status.mqttWsPort).toBeNull();
    const client = await connectAsync(`mqtt://127.0.0.1:${loggedMqttPort(local)}`, {
      reconnectPeriod: 0,
    });
    try {
      await client.subscribeAsync('console/t', { qos: 1 });
      const got = new Promise<string>((resolve) =>
        client.once('message', (_t, p) => resolve(p.toString())),
      );
      await client.publishAsync('console/t', 'hello', { qos: 1 });
      expect(await got).toBe('hello');
    } finally {
      await client.endAsync(true);
    }
  }, 60_000);

  it('keeps the MQTT port it chose across restarts', async () => {
    dir = await makeTempDir();
    local = createLocalConsole({
      brokerPort: 0,
      mqttPort: 0,
      dataDir: path.join(dir.path, 'data'),
      supervisor: { env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'info' } },
    });
    const first = await local.startBroker();
    await waitUntil(() => loggedMqttPort(local!) !== null, 'MQTT listening logged');
    const mqttPort = loggedMqttPort(local) as number;
    expect(mqttPort).toBeGreaterThan(0);

    const again = await local.supervisor.restart();
    expect(again.pid).not.toBe(first.pid);
    expect(again.port).toBe(first.port);
    // The restarted broker bound the same MQTT port (its own log says so)…
    await waitUntil(() => loggedMqttPorts(local!).length === 2, 'second MQTT listening logged');
    expect(loggedMqttPorts(local)).toEqual([mqttPort, mqttPort]);
    // …and its status says so too.
    expect(again.mqttPort).toBe(mqttPort);
    // Devices find it at the address they had.
    const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    await client.endAsync(true);
  }, 90_000);

  it('names the taken MQTT port, not the socket.io port', async () => {
    dir = await makeTempDir();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      local = createLocalConsole({
        brokerPort: 0,
        mqttPort: taken,
        dataDir: path.join(dir.path, 'data'),
        supervisor: { env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'silent' } },
      });
      const error = await local.startBroker().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PortInUseError);
      expect(error).toMatchObject({
        code: 'SWB_ERR_PORT_IN_USE',
        listener: 'mqtt',
        port: taken,
        message: `MQTT port ${taken} is already in use`,
      });
      expect(local.supervisor.status()).toMatchObject({
        state: 'failed',
        lastError: `MQTT port ${taken} is already in use`,
      });
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  }, 60_000);

  it('the console CLI flag --broker-mqtt-port: 1883 by default, off, or a port', () => {
    expect(parseConsoleFlags([], {}).brokerMqttPort).toBe(DEFAULT_LOCAL_MQTT_PORT);
    expect(parseConsoleFlags(['--broker-mqtt-port', 'off'], {}).brokerMqttPort).toBeNull();
    expect(parseConsoleFlags(['--broker-mqtt-port', '0'], {}).brokerMqttPort).toBe(0);
    expect(() => parseConsoleFlags(['--broker-mqtt-port', 'x'], {})).toThrow(
      /--broker-mqtt-port x: use 0-65535 \(0 = any free port, off = no MQTT\)/,
    );
  });
});
