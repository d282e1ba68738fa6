/**
 * The server side of a benchmark runs in its own child process, so that clients and server do
 * not share an event loop (or a core, on a 2-core machine). This module holds both halves of
 * that arrangement and the IPC protocol between them:
 *
 * - `serveOverIpc(start)` — used by the server entries (`relay-server.ts`, `broker-server.ts`):
 *   starts the server, reports `ready` with its port, answers `sample` requests with CPU and
 *   event-loop counters, starts/stops the V8 CPU profiler on request, and exits on `stop`.
 * - `forkServer(kind)` — used by the orchestrator: forks an entry with the current tsx loader,
 *   waits for `ready`, and returns a handle to sample, profile and stop it.
 *
 * Profiling covers only what the orchestrator brackets with `profile('start')` /
 * `profile('stop')` (the measured phases), not start-up and TypeScript loading; each bracket
 * is written to `<cpuProfDir>/<kind>-<pid>-<n>.cpuprofile`.
 *
 * Units: CPU times in microseconds (as `process.cpuUsage`), event-loop times in milliseconds
 * (as `performance.eventLoopUtilization`), memory in bytes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Socket as NetSocket } from 'node:net';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { ServerOptions } from 'socket.io';
import {
  DEFAULT_MAX_HTTP_BUFFER_SIZE,
  STOCK_SOCKET_SETTINGS,
  socketIoOptions,
} from '../../broker/index';
import { bundledServerEntry, useServerBundles } from './server-bundle';

/**
 * The broker's socket.io options with the reference's per-message deflate (spec §1.1), which
 * the broker ran by default before issue 7: the relay of the `previous_bench` variant.
 */
export const BROKER_SOCKET_IO_OPTIONS: Partial<ServerOptions> = socketIoOptions(
  DEFAULT_MAX_HTTP_BUFFER_SIZE,
  { ...STOCK_SOCKET_SETTINGS, per_message_deflate: true },
);

export type ServerKind = 'relay' | 'broker';
/** Every server script `forkServer` can start (`aedes`: plain aedes, the MQTT baseline). */
export type ForkableKind = ServerKind | 'aedes';

/** Counters of the server process at one instant. */
export interface ServerSample {
  /** `process.cpuUsage()`: user and system CPU time, µs. */
  cpu: NodeJS.CpuUsage;
  /** `performance.eventLoopUtilization()`: idle and active time, ms. */
  elu: EventLoopUtilization;
  /** Resident set size, bytes. */
  rssBytes: number;
  /** `performance.now()` of the sample, ms. */
  at: number;
  /** Bytes on the wire since the process started, over every accepted TCP connection. */
  wire: WireBytes;
  /**
   * CPU time (user + system, µs) of each thread of the process by thread id, from
   * `/proc/self/task/<tid>/stat` (Linux; empty elsewhere). The main thread's id is the pid.
   */
  threads: Record<number, number>;
}

/** Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, 100 on Linux). */
const CLK_TCK = 100;

/** Per-thread CPU time (µs) of this process; `{}` where `/proc` is not available. */
function threadCpu(): Record<number, number> {
  const out: Record<number, number> = {};
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime is the 12th, stime 13th.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[Number(tid)] = ((Number(f[11]) + Number(f[12])) * 1e6) / CLK_TCK;
    }
  } catch {
    // Not Linux, or a thread ended while being read: report what was read.
  }
  return out;
}

/**
 * CPU (µs) spent between two samples by the main thread, by the busiest other thread (in the
 * durable scenario: the SQLite storage worker) and by every other thread together (GC
 * helpers, the libuv pool…).
 */
export function threadLoad(a: ServerSample, b: ServerSample, pid: number) {
  let top = 0;
  let rest = 0;
  for (const [tid, us] of Object.entries(b.threads)) {
    if (Number(tid) === pid) continue;
    const d = us - (a.threads[Number(tid)] ?? 0);
    if (d > top) {
      rest += top;
      top = d;
    } else rest += d;
  }
  return { mainUs: (b.threads[pid] ?? 0) - (a.threads[pid] ?? 0), topUs: top, restUs: rest };
}

/** TCP payload bytes (HTTP, WebSocket framing and all): `in` = client→server. */
export interface WireBytes {
  in: number;
  out: number;
}

/**
 * Counts the bytes of every TCP connection the process accepts (`net.server.socket`
 * diagnostics channel), closed ones included, so relay and broker are measured alike.
 */
function wireCounter(): () => WireBytes {
  const open = new Set<NetSocket>();
  const closed: WireBytes = { in: 0, out: 0 };
  subscribe('net.server.socket', (message) => {
    const socket = (message as { socket: NetSocket }).socket;
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      closed.in += socket.bytesRead;
      closed.out += socket.bytesWritten;
    });
  });
  return () => {
    const total = { ...closed };
    for (const socket of open) {
      total.in += socket.bytesRead;
      total.out += socket.bytesWritten;
    }
    return total;
  };
}

type ParentMessage =
  | { type: 'sample'; id: number }
  | { type: 'profile'; id: number; action: 'start' | 'stop' }
  | { type: 'stop' };
type ChildMessage =
  | { type: 'ready'; port: number; pid: number }
  | { type: 'sample'; id: number; sample: ServerSample }
  | { type: 'profiled'; id: number; file: string | null };

/** Env var through which the orchestrator tells a server child where profiles go. */
const PROFILE_DIR_ENV = 'BENCH_SERVER_PROFILE_DIR';

/** A running server started by `start`: its port and how to close it. */
export interface StartedServer {
  port: number;
  close(): Promise<void>;
}

/** Child side: runs `start()` and serves the IPC protocol described above. */
export function serveOverIpc(start: () => Promise<StartedServer>): void {
  const send = (message: ChildMessage) => process.send?.(message);
  const profiler = createProfiler(process.env[PROFILE_DIR_ENV]);
  const wire = wireCounter();
  start().then(
    (server) => {
      process.on('message', (raw: ParentMessage) => {
        if (raw.type === 'profile') {
          void profiler(raw.action).then((file) => send({ type: 'profiled', id: raw.id, file }));
        } else if (raw.type === 'sample') {
          const sample: ServerSample = {
            cpu: process.cpuUsage(),
            elu: performance.eventLoopUtilization(),
            rssBytes: process.memoryUsage.rss(),
            at: performance.now(),
            wire: wire(),
            threads: threadCpu(),
          };
          send({ type: 'sample', id: raw.id, sample });
        } else if (raw.type === 'stop') {
          const force = setTimeout(() => process.exit(0), 5_000);
          force.unref();
          void server.close().finally(() => process.exit(0));
        }
      });
      // An orchestrator that dies must not leave a server behind.
      process.on('disconnect', () => process.exit(0));
      send({ type: 'ready', port: server.port, pid: process.pid });
    },
    (err: unknown) => {
      process.stderr.write(`bench server failed to start: ${String(err)}\n`);
      process.exit(1);
    },
  );
}

/** V8 CPU profiler bracket: `start`, then `stop` writes a profile and returns its path. */
function createProfiler(dir: string | undefined) {
  let session: Session | null = null;
  let count = 0;
  return async (action: 'start' | 'stop'): Promise<string | null> => {
    if (!dir) return null;
    if (action === 'start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      return null;
    }
    if (!session) return null;
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    session = null;
    const file = join(dir, `${process.argv[2] ?? 'server'}-${process.pid}-${++count}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return file;
  };
}

/** Parent-side handle on a forked server process. */
export interface ServerHandle {
  readonly kind: ForkableKind;
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  sample(): Promise<ServerSample>;
  /** Starts or stops (and writes) a CPU profile; a no-op unless forked with `cpuProfDir`. */
  profile(action: 'start' | 'stop'): Promise<string | null>;
  /** Asks the server to close and waits for the process to exit (killed after 10 s). */
  stop(): Promise<void>;
}

/** Server CPU use between two samples: percent of one core, and event-loop utilisation 0–1. */
export function serverLoad(a: ServerSample, b: ServerSample): { cpuPct: number; elu: number } {
  const wallMs = b.at - a.at;
  const cpuMs = (b.cpu.user - a.cpu.user + b.cpu.system - a.cpu.system) / 1000;
  const active = b.elu.active - a.elu.active;
  const idle = b.elu.idle - a.elu.idle;
  return {
    cpuPct: wallMs > 0 ? (cpuMs / wallMs) * 100 : Number.NaN,
    elu: active + idle > 0 ? active / (active + idle) : Number.NaN,
  };
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface ForkOptions {
  /** When set, `profile('start'|'stop')` brackets are written as `.cpuprofile` files here. */
  cpuProfDir?: string;
  /** Extra environment for the server (e.g. `BENCH_BROKER_SETTINGS`). */
  env?: NodeJS.ProcessEnv;
}

/** Smoke mode: stopped servers waiting for a later fork of the same kind and environment. */
const parked = new Map<string, ServerHandle[]>();

/**
 * Forks `bench/servers/<kind>-server.ts` and waits until it listens (60 s at most: loading the
 * TypeScript sources takes long on a machine busy with other work). In quick mode (or with
 * `BENCH_SERVER_ENTRY=bundle`) the child runs the entry's esbuild bundle on plain `node`
 * instead (`server-bundle.ts`), built once per run.
 *
 * Smoke mode (`BENCH_SMOKE=1`, not profiling): `stop()` parks the server instead, and a later
 * fork of the same kind and `env` gets it back (fan-out's 1→10 row reuses the 1→1 row's
 * relay and broker), saving start-ups; servers with a data directory
 * (`BENCH_BROKER_DATA_DIR`) are never shared. `stopParkedServers()` stops the parked ones.
 */
export async function forkServer(
  kind: ForkableKind,
  options: ForkOptions = {},
): Promise<ServerHandle> {
  const env = options.env ?? {};
  if (process.env.BENCH_SMOKE !== '1' || options.cpuProfDir || env.BENCH_BROKER_DATA_DIR) {
    return forkFresh(kind, options);
  }
  const key = JSON.stringify([kind, env]);
  const handle = parked.get(key)?.pop() ?? (await forkFresh(kind, options));
  return {
    ...handle,
    stop: async () => void parked.set(key, [...(parked.get(key) ?? []), handle]),
  };
}

/** Stops every parked server (smoke mode, see `forkServer`) and waits for them to exit. */
export async function stopParkedServers(): Promise<void> {
  const all = [...parked.values()].flat();
  parked.clear();
  await Promise.all(all.map((s) => s.stop()));
}

async function forkFresh(kind: ForkableKind, options: ForkOptions): Promise<ServerHandle> {
  const bundled = useServerBundles();
  const entry = bundled
    ? await bundledServerEntry(kind)
    : fileURLToPath(new URL(`./${kind}-server.ts`, import.meta.url));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SWB_LOG_LEVEL: process.env.SWB_LOG_LEVEL ?? 'warn',
  };
  if (options.cpuProfDir) env[PROFILE_DIR_ENV] = options.cpuProfDir;
  Object.assign(env, options.env);
  const child = fork(entry, [kind], {
    // Under tsx the orchestrator's own loader flags let the child run TypeScript too; a bundle
    // is plain JavaScript and needs no loader.
    execArgv: bundled
      ? []
      : process.execArgv.some((a) => a.includes('tsx'))
        ? process.execArgv
        : ['--import', 'tsx'],
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  live.add(child);
  // Server logs must never reach the orchestrator's stdout, which carries the JSON result.
  child.stdout?.pipe(process.stderr);
  child.stderr?.pipe(process.stderr);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      live.delete(child);
      resolve();
    });
  });

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${kind} server: not ready after 60 s`)),
      60_000,
    );
    child.on('message', (m: ChildMessage) => {
      if (m.type !== 'ready') return;
      clearTimeout(timer);
      resolve(m.port);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited before it was ready`));
    });
  });

  let nextId = 0;
  const pending = new Map<number, (reply: ChildMessage) => void>();
  child.on('message', (m: ChildMessage) => {
    if (m.type === 'ready') return;
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  const request = (message: ParentMessage & { id: number }) =>
    new Promise<ChildMessage>((resolve) => {
      pending.set(message.id, resolve);
      child.send(message);
    });

  return {
    kind,
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    async sample() {
      const reply = await request({ type: 'sample', id: nextId++ });
      return (reply as Extract<ChildMessage, { type: 'sample' }>).sample;
    },
    async profile(action) {
      if (!options.cpuProfDir) return null;
      const reply = await request({ type: 'profile', id: nextId++, action });
      return (reply as Extract<ChildMessage, { type: 'profiled' }>).file;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.send({ type: 'stop' } satisfies ParentMessage);
      await exited;
      clearTimeout(kill);
    },
  };
}
