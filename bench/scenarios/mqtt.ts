/**
 * MQTT throughput (issue 14): one MQTT.js publisher → one MQTT.js subscriber through the
 * Switchboard MQTT listener (auth off, realm `default`, tyo-mq bridge active) and through plain
 * aedes, at QoS 0 and QoS 1, `ratio = switchboard / aedes` messages/s (goal ≥ 0.8). Clients use
 * MQTT.js defaults (MQTT 3.1.1); the same runs with MQTT 5 clients are reported beside them.
 *
 * Closed loop: at most `window` messages published and not yet received. Each server runs in
 * its own child process; runs of the two servers are interleaved (ABBA) per QoS.
 */
import { performance } from 'node:perf_hooks';
import { connectAsync, type MqttClient } from 'mqtt';
import { median, ratio } from '../lib/stats';
import { forkServer, type ForkOptions, type ServerHandle } from '../servers/server-process';

export interface MqttBenchConfig {
  messages: number;
  payloadBytes: number;
  window: number;
  repeats: number;
}

/** Counts of the full run, quick mode, and the smoke run (which only proves the runs work). */
export const mqttBenchConfig = (quick: boolean, smoke = false): MqttBenchConfig => ({
  messages: smoke ? 200 : quick ? 2_000 : 20_000,
  payloadBytes: 100,
  window: 32,
  repeats: quick ? 1 : 3,
});

export interface MqttBenchEntry {
  /** 4 = MQTT 3.1.1 (MQTT.js default), 5 = MQTT 5.0. */
  protocol_version: 4 | 5;
  qos: 0 | 1;
  switchboard_msgs_per_s: number[];
  aedes_msgs_per_s: number[];
  switchboard_median_msgs_per_s: number;
  aedes_median_msgs_per_s: number;
  ratio: number | null;
}

/** One run: `messages` messages of `payloadBytes` at `qos`; resolves with messages/s. */
async function runOnce(
  port: number,
  qos: 0 | 1,
  protocolVersion: 4 | 5,
  config: MqttBenchConfig,
): Promise<number> {
  const url = `mqtt://127.0.0.1:${port}`;
  const clients: MqttClient[] = [];
  const options = { reconnectPeriod: 0, protocolVersion };
  try {
    const sub = await connectAsync(url, options);
    clients.push(sub);
    const pub = await connectAsync(url, options);
    clients.push(pub);
    await sub.subscribeAsync('bench/mqtt', { qos });
    const payload = Buffer.alloc(config.payloadBytes, 0x61);
    let sent = 0;
    let received = 0;
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stalled at ${received}`)), 120_000);
      const pump = () => {
        while (sent < config.messages && sent - received < config.window) {
          sent++;
          pub.publish('bench/mqtt', payload, { qos });
        }
      };
      sub.on('message', () => {
        received++;
        if (received === config.messages) {
          clearTimeout(timer);
          resolve();
        } else pump();
      });
      pump();
    });
    return Math.round(config.messages / ((performance.now() - started) / 1000));
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true)));
  }
}

/** Runs QoS 0 and QoS 1 against both servers; `log` gets progress lines (stderr). */
export async function runMqttBench(
  config: MqttBenchConfig,
  fork: ForkOptions,
  log: (line: string) => void,
): Promise<MqttBenchEntry[]> {
  const switchboard = await forkServer('broker', {
    ...fork,
    env: {
      BENCH_BROKER_SETTINGS: JSON.stringify({ mqtt: { enabled: true, port: 0 } }),
      BENCH_REPORT_MQTT_PORT: '1',
    },
  });
  let aedes: ServerHandle | null = null;
  try {
    aedes = await forkServer('aedes', fork);
    const out: MqttBenchEntry[] = [];
    for (const protocolVersion of [4, 5] as const) {
      for (const qos of [0, 1] as const) {
        const run = (port: number, c: MqttBenchConfig) => runOnce(port, qos, protocolVersion, c);
        // Warm-up, then ABBA.
        await run(switchboard.port, { ...config, messages: config.messages / 10 });
        await run(aedes.port, { ...config, messages: config.messages / 10 });
        const sw: number[] = [];
        const ae: number[] = [];
        for (let i = 0; i < config.repeats; i++) {
          const order = i % 2 === 0 ? ['sw', 'ae'] : ['ae', 'sw'];
          for (const which of order) {
            if (which === 'sw') sw.push(await run(switchboard.port, config));
            else ae.push(await run(aedes.port, config));
          }
        }
        const entry: MqttBenchEntry = {
          protocol_version: protocolVersion,
          qos,
          switchboard_msgs_per_s: sw,
          aedes_msgs_per_s: ae,
          switchboard_median_msgs_per_s: median(sw),
          aedes_median_msgs_per_s: median(ae),
          ratio: ratio(median(sw), median(ae)),
        };
        log(
          `v${protocolVersion === 4 ? '3.1.1' : '5'} qos ${qos}: switchboard ${entry.switchboard_median_msgs_per_s}/s, aedes ${entry.aedes_median_msgs_per_s}/s, ratio ${entry.ratio}`,
        );
        out.push(entry);
      }
    }
    return out;
  } finally {
    await switchboard.stop();
    await aedes?.stop();
  }
}
