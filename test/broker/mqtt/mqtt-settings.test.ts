/**
 * The `mqtt` settings block and `--mqtt-port` (issue 14): defaults, validation, the CLI flag's
 * override layer, and a listener started by `listen()` and closed by `close()`.
 */
import { connectAsync } from 'mqtt';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseBrokerFlags, UsageError } from '../../../broker/cli-flags';
import { parseSettings, createBroker } from '../../../broker/index';

describe('mqtt settings', () => {
  it('is off by default on port 1883 with ws_path /mqtt', () => {
    expect(parseSettings({}).mqtt).toEqual({
      enabled: false,
      port: 1883,
      ws_path: '/mqtt',
      max_packet_size: 1_048_576,
      max_inflight_inbound: 1000,
      session_expiry_max: 604_800,
      pending_sessions_max: 10_000,
      topic_alias_max: 16,
    });
  });

  it('refuses unknown keys and bad ports with their path', () => {
    expect(() => parseSettings({ mqtt: { port: 70_000 } })).toThrow(/mqtt\.port/);
    expect(() => parseSettings({ mqtt: { tls: { key: 'k' } } })).toThrow(/mqtt\.tls\.cert/);
    expect(() => parseSettings({ mqtt: { bogus: true } })).toThrow(/mqtt/);
    expect(() => parseSettings({ mqtt: { topic_alias_max: -1 } })).toThrow(/mqtt\.topic_alias_max/);
    expect(() => parseSettings({ mqtt: { max_inflight_inbound: 1.5 } })).toThrow(
      /mqtt\.max_inflight_inbound/,
    );
  });
});

describe('--mqtt-port', () => {
  it('parses a port and refuses junk', () => {
    expect(parseBrokerFlags(['--mqtt-port', '0'], {}).mqttPort).toBe(0);
    expect(parseBrokerFlags([], {}).mqttPort).toBeUndefined();
    expect(() => parseBrokerFlags(['--mqtt-port', 'x'], {})).toThrow(UsageError);
    expect(() => parseBrokerFlags(['--mqtt-port', '65536'], {})).toThrow(UsageError);
  });

  it('as the CLI passes it (an override layer), starts MQTT with listen() and stops it with close()', async () => {
    const broker = createBroker(
      {},
      {
        logger: pino({ level: 'silent' }),
        env: {},
        settingsOverrides: { mqtt: { enabled: true, port: 0 } },
      },
    );
    expect(broker.status().mqttPort).toBeNull();
    await broker.listen(0, '127.0.0.1');
    const port = broker.status().mqttPort;
    expect(port).toBeGreaterThan(0);
    const client = await connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 });
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    await broker.close();
    await closed;
    expect(broker.status().mqttPort).toBeNull();
    await client.endAsync(true);
  });
});
