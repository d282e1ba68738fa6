/**
 * The system under test: the Switchboard broker, built with `createBroker({})` (default
 * settings: in-memory registries and store, no auth; the durable scenario passes other settings
 * in `BENCH_BROKER_SETTINGS` and a data directory in `BENCH_BROKER_DATA_DIR`) and run as a
 * child process of the benchmark (`server-process.ts` protocol).
 *
 * Differences from `broker/cli.ts`, all deliberate:
 *   - it listens on an ephemeral port on 127.0.0.1 and reports the port over the bench's IPC
 *     protocol (which also answers CPU/event-loop samples) instead of `broker-ready`;
 *   - no data directory is created (the default settings keep everything in memory), and the
 *     HTTP API the CLI switches on is left off (it serves no socket.io traffic);
 *   - logging follows `SWB_LOG_LEVEL`, which the orchestrator sets to `warn` unless told
 *     otherwise, and goes to this process's stdout, which the orchestrator forwards to its
 *     stderr — never to the JSON on its stdout.
 *
 * Profiling: with `BENCH_CPU_PROF_DIR` set, each throughput phase is profiled in this process
 * (see `server-process.ts`); summarise with `npx tsx bench/profile-summary.ts <file>`.
 */
import { createBroker } from '../../broker/index';
import { serveOverIpc } from './server-process';

serveOverIpc(async () => {
  // The durable scenario passes its settings (storage, synchronous…) and a data directory.
  const settings: unknown = JSON.parse(process.env.BENCH_BROKER_SETTINGS ?? '{}');
  const broker = createBroker(settings, { dataDir: process.env.BENCH_BROKER_DATA_DIR });
  const { port } = await broker.listen(0, '127.0.0.1');
  return {
    // The MQTT scenario (settings with `mqtt.enabled`) talks to the MQTT port.
    port: process.env.BENCH_REPORT_MQTT_PORT ? broker.status().mqttPort! : port,
    close: () => broker.close(),
  };
});

/*
 * Settings note: `createBroker({})` applies the documented defaults (spec/protocol-admin.md
 * §12.1): idle eviction on with its default interval, metrics counters on (prom-client counters
 * are updated on every produce and delivery whether or not anything scrapes them), input
 * limits at their defaults. The benchmark measures that default configuration on purpose,
 * since it is what `npm run broker` and the desktop app run.
 */
