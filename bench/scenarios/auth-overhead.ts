/**
 * Auth overhead scenario: the fan-out workload (1 producer → N consumers, one exact
 * subscription each) against two brokers, one with auth off (default settings) and one with
 * auth on, where every client first authenticates with a static token (`AUTHENTICATION`, then
 * waits for `AUTH_OK`, as the stock clients do, `spec/protocol-core.md` §1.3).
 *
 * Issue 9 target: with auth on, 1→1 and 1→10 stay within 5 % of auth off, because auth work
 * happens at connect time; per message only the role gate runs (`broker/auth/event-gate.ts`).
 * Both brokers run in their own child processes and are measured interleaved in ABBA order, like
 * `fanout.ts`. `ratio = auth on ÷ auth off` deliveries/s (medians).
 *
 * Units: rates per second, times in ms, sizes in bytes.
 */
import {
  ClientEvent,
  consumeEvent,
  ServerEvent,
  subscriptionKey,
} from '../../shared/protocol-events';
import {
  closeAll,
  connectMany,
  registerConsumer,
  registerProducer,
  subscribeExact,
  type Socket,
} from '../lib/clients';
import { LoadSession } from '../lib/load-session';
import { measureRun, summariseRuns, type MeasuredRun, type RunSummary } from '../lib/measure';
import { ratio } from '../lib/stats';
import { forkServer, type ForkOptions, type ServerHandle } from '../servers/server-process';
import type { FanoutConfig } from './fanout';

const PRODUCER = 'bench-producer';
const EVENT = 'bench/auth';
const TOKEN = 'bench-static-token';
const WARMUP_CAP_MS = 1_000;

/** Settings of the auth-on broker: one static token for every client, no admin bootstrap. */
export const AUTH_ON_SETTINGS = {
  auth: {
    enabled: true,
    auto_admin_token: false,
    tokens: [{ token: TOKEN, realm: 'bench', role: 'both' }],
  },
};

type Mode = 'auth_off' | 'auth_on';

interface Target {
  mode: Mode;
  server: ServerHandle;
  sockets: Socket[];
  session: LoadSession | null;
}

export interface AuthOverheadEntry {
  consumers: number;
  payload_bytes: number;
  auth_off: RunSummary;
  auth_on: RunSummary;
  /** Auth-on ÷ auth-off deliveries/s (medians). */
  ratio: number | null;
  /** Auth-on ÷ auth-off server CPU per delivery. */
  cpu_per_delivery_ratio: number | null;
  /** Issue 9: auth-on throughput at least 95 % of auth-off. */
  within_5_pct: boolean;
}

function authenticate(socket: Socket, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no AUTH_OK')), timeoutMs);
    socket.once(ServerEvent.AUTH_OK, () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once(ServerEvent.AUTH_FAIL, (p: { message: string }) => {
      clearTimeout(timer);
      reject(new Error(`AUTH_FAIL ${p.message}`));
    });
    socket.emit(ClientEvent.AUTHENTICATION, { token: TOKEN });
  });
}

async function connect(target: Target, config: FanoutConfig): Promise<void> {
  target.sockets = await connectMany(target.server.url, config.consumers + 1);
  if (target.mode === 'auth_on') await Promise.all(target.sockets.map((s) => authenticate(s)));
  const producer = target.sockets[config.consumers]!;
  const consumers = target.sockets.slice(0, config.consumers);
  consumers.forEach((socket, i) => {
    registerConsumer(socket, `bench-consumer-${i}`);
    subscribeExact(socket, `bench-consumer-${i}`, PRODUCER, EVENT);
  });
  registerProducer(producer, PRODUCER);
  const deliveryEvent = consumeEvent(subscriptionKey(PRODUCER, EVENT));
  target.session = new LoadSession(
    producer,
    PRODUCER,
    EVENT,
    consumers.map((socket) => ({ socket, deliveryEvent })),
    config.payloadBytes,
  );
  await target.session.untilAllReceive();
}

/** Measures one configuration `repeats` times on each broker (see the module comment). */
export async function runAuthOverhead(
  config: FanoutConfig,
  repeats: number,
  fork: ForkOptions = {},
  progress: (line: string) => void = () => {},
): Promise<AuthOverheadEntry> {
  const targets: Target[] = [];
  const runs: Record<Mode, MeasuredRun[]> = { auth_off: [], auth_on: [] };
  try {
    for (const mode of ['auth_off', 'auth_on'] as const) {
      const env =
        mode === 'auth_on' ? { BENCH_BROKER_SETTINGS: JSON.stringify(AUTH_ON_SETTINGS) } : {};
      const target: Target = {
        mode,
        server: await forkServer('broker', { ...fork, env: { ...fork.env, ...env } }),
        sockets: [],
        session: null,
      };
      targets.push(target);
      await connect(target, config);
    }
    for (let r = 0; r < repeats; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const { mode, server, session } of order) {
        await session!.phase({
          messages: config.warmupMessages,
          window: config.window,
          capMs: WARMUP_CAP_MS,
        });
        const run = await measureRun(session!, server, config);
        runs[mode].push(run);
        progress(`${mode} (${r + 1}/${repeats}): ${Math.round(run.deliveries_per_s)} deliveries/s`);
      }
    }
  } finally {
    for (const target of targets) {
      target.session?.detach();
      closeAll(target.sockets);
    }
    await Promise.all(targets.map((t) => t.server.stop()));
  }
  const off = summariseRuns(runs.auth_off);
  const on = summariseRuns(runs.auth_on);
  const r = ratio(on.deliveries_per_s ?? NaN, off.deliveries_per_s ?? NaN);
  return {
    consumers: config.consumers,
    payload_bytes: config.payloadBytes,
    auth_off: off,
    auth_on: on,
    ratio: r,
    cpu_per_delivery_ratio: ratio(
      on.server_cpu_us_per_delivery ?? NaN,
      off.server_cpu_us_per_delivery ?? NaN,
    ),
    within_5_pct: r !== null && r >= 0.95,
  };
}
