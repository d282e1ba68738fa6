/**
 * MQTT conformance comparison (issue 24, `BENCH_ONLY=mqtt-conformance npm run bench`): the
 * conformance set of `test/support/mqtt-conformance/` (modelled on Paho's interoperability
 * suites) run against Switchboard (`createBroker` in this process, MQTT on a free port, auth
 * off, defaults otherwise) and against Debian's Mosquitto (`/usr/sbin/mosquitto`, started here
 * on a free port of 127.0.0.1 with a temporary config — `allow_anonymous true`,
 * `persistence false` — and killed afterwards). Cases run one at a time, Switchboard then
 * Mosquitto for each.
 *
 * Result: `{rows: [{case, version, switchboard, mosquitto}], totals}` where each outcome is
 * `pass`, `fail(<message>)` or `skipped(<reason>)`; `mosquitto` is `null` with `mosquitto_skipped`
 * giving the reason when the binary is absent or does not start. `dollar_publish_refused` checks
 * Switchboard's own `$`-topic policy (docs/mqtt.md, Roles), so Mosquitto is expected to fail it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createBroker } from '../../broker/index';
import {
  conformanceCases,
  runCase,
  type ConformanceTarget,
  type Outcome,
} from '../../test/support/mqtt-conformance/conformance-set';

export const MOSQUITTO_BIN = '/usr/sbin/mosquitto';

export interface ConformanceRow {
  case: string;
  version: '3.1.1' | '5';
  policy?: 'switchboard';
  switchboard: Outcome;
  mosquitto: Outcome | null;
}

type Totals = { pass: number; fail: number; skipped: number };

export interface ConformanceResult {
  rows: ConformanceRow[];
  totals: { cases: number; switchboard: Totals; mosquitto: Totals | null };
  mosquitto_skipped: string | null;
  /** Cases Mosquitto passes and Switchboard fails (policy cases excepted): defects. */
  switchboard_only_failures: string[];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

interface Mosquitto {
  port: number;
  stop(): Promise<void>;
}

/** Starts Mosquitto on a free port; resolves null (with the reason in `why`) if it cannot. */
async function startMosquitto(log: (line: string) => void): Promise<Mosquitto | string> {
  if (!existsSync(MOSQUITTO_BIN)) return `${MOSQUITTO_BIN} not found`;
  const dir = mkdtempSync(join(tmpdir(), 'swb-mosquitto-'));
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  const child: ChildProcess = spawn(MOSQUITTO_BIN, ['-c', conf], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 5_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      return `mosquitto did not start: ${stderr.trim().slice(0, 300) || 'no output'}`;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  log(`mosquitto pid ${child.pid} on port ${port}`);
  return { port, stop };
}

const tally = (outcomes: Outcome[]): Totals => ({
  pass: outcomes.filter((o) => o === 'pass').length,
  fail: outcomes.filter((o) => o.startsWith('fail')).length,
  skipped: outcomes.filter((o) => o.startsWith('skipped')).length,
});

export async function runMqttConformance(log: (line: string) => void): Promise<ConformanceResult> {
  const broker = createBroker(
    { mqtt: { enabled: true, port: 0 } },
    { logger: pino({ level: process.env.SWB_LOG_LEVEL ?? 'warn' }, pino.destination(2)) },
  );
  await broker.listen(0, '127.0.0.1');
  const anonymous = (port: number): ConformanceTarget => ({
    host: '127.0.0.1',
    port,
    credentials: () => ({}),
  });
  const switchboard = anonymous(broker.status().mqttPort!);
  const mosq = await startMosquitto(log);
  const mosquitto = typeof mosq === 'string' ? null : anonymous(mosq.port);
  const rows: ConformanceRow[] = [];
  try {
    for (const c of conformanceCases) {
      const version = c.version === 4 ? '3.1.1' : '5';
      const row: ConformanceRow = {
        case: c.name,
        version,
        ...(c.policy ? { policy: c.policy } : {}),
        switchboard: await runCase(c, switchboard),
        mosquitto: mosquitto ? await runCase(c, mosquitto) : null,
      };
      log(`${version} ${c.name}: switchboard ${row.switchboard}; mosquitto ${row.mosquitto}`);
      rows.push(row);
    }
  } finally {
    if (typeof mosq !== 'string') await mosq.stop();
    await broker.close();
  }
  return {
    rows,
    totals: {
      cases: rows.length,
      switchboard: tally(rows.map((r) => r.switchboard)),
      mosquitto: mosquitto ? tally(rows.map((r) => r.mosquitto!)) : null,
    },
    mosquitto_skipped: typeof mosq === 'string' ? mosq : null,
    switchboard_only_failures: rows
      .filter((r) => !r.policy && r.mosquitto === 'pass' && r.switchboard.startsWith('fail'))
      .map((r) => `${r.version} ${r.case}: ${r.switchboard}`),
  };
}
