/**
 * RSS scenario (issue 23, `BENCH_ONLY=rss`): resident memory of the headless broker as it is
 * deployed, next to a bare socket.io relay, in the same run:
 *
 *   - `installed`: the npm package (`npm pack`, installed once into a temp directory,
 *     bench/lib/installed-package.ts), run as `node_modules/.bin/switchboard-broker` with its
 *     defaults (SQLite store in a fresh data directory, HTTP API on);
 *   - `installed_memory`: the same with `--storage memory`, which has no SQLite storage worker
 *     thread (its own V8 isolate): what that thread costs;
 *   - `tsx`: what `npm run broker` execs, `node --import tsx broker/cli.ts`, same flags;
 *   - `relay`: `bench/servers/bare-relay.ts` bundled with esbuild and run on plain Node.
 *
 * Each server runs alone (one at a time, order alternating per repeat). Measured from outside,
 * from `/proc/<pid>/status` (Linux only), so every process is measured the same way: idle RSS
 * once the process settled after start, then RSS with `connections` stock socket.io-client
 * sockets (defaults: polling, then the WebSocket upgrade) each registered as a consumer
 * (`CONSUMER`, spec §3.1) and past a `PING` barrier. "Settled": RSS sampled every 250 ms until
 * four samples in a row lie within 2 % (at most 15 s); their median counts.
 *
 * Goals (issue 23): installed idle − relay idle ≤ 20 MiB; installed per-connection RSS ≤ 1.1 ×
 * the relay's. Units: MiB (2^20 bytes) and KiB per connection.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ClientEvent } from '../../shared/protocol-events';
import { closeAll, connectMany, pingBarrier, type Socket } from '../lib/clients';
import { packAndInstall } from '../lib/installed-package';
import { median, ratio, round } from '../lib/stats';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MIB = 1024 * 1024;

export interface RssConfig {
  /** Client sockets in the loaded phase. */
  connections: number;
  repeats: number;
}

export function rssConfig(quick: boolean, repeats: number): RssConfig {
  const fromEnv = Number(process.env.BENCH_RSS_CONNECTIONS);
  return {
    connections: Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : quick ? 200 : 1_000,
    repeats,
  };
}

type ServerName = 'installed' | 'installed_memory' | 'tsx' | 'relay';

/** Memory of a process (Linux `/proc/<pid>/status`), bytes. */
interface ProcMemory {
  rss: number;
  anon: number;
  file: number;
  threads: number;
}

function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return {
    rss: field('VmRSS') * 1024,
    anon: field('RssAnon') * 1024,
    file: field('RssFile') * 1024,
    threads: field('Threads'),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Samples until RSS is stable (see the module comment); the median sample. */
async function settledMemory(pid: number): Promise<ProcMemory> {
  const window: ProcMemory[] = [];
  const deadline = Date.now() + 15_000;
  for (;;) {
    window.push(procMemory(pid));
    if (window.length > 4) window.shift();
    const rss = window.map((m) => m.rss);
    const stable = window.length === 4 && Math.max(...rss) - Math.min(...rss) <= 0.02 * rss[0]!;
    if (stable || Date.now() > deadline) {
      const mid = median(rss);
      return window.find((m) => m.rss === mid) ?? window[window.length - 1]!;
    }
    await sleep(250);
  }
}

interface Running {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/** Spawns a server that reports `ready` / `broker-ready` with its port over IPC. */
async function spawnServer(command: string, args: string[], cwd: string): Promise<Running> {
  const child = spawn(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // Plain Node: no NODE_OPTIONS or loader of the orchestrator, no `.env` of the checkout.
    env: {
      PATH: process.env.PATH,
      SWITCHBOARD_LOG_LEVEL: 'warn',
      TYO_MQ_ENV_FILE: join(cwd, 'none.env'),
    },
  });
  // Logs must never reach the orchestrator's stdout, which carries the JSON result.
  child.stdout?.pipe(process.stderr);
  child.stderr?.pipe(process.stderr);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command}: not ready after 60 s`)), 60_000);
    child.on('message', (m: { type?: string; port?: number; message?: string }) => {
      if (m.type === 'ready' || m.type === 'broker-ready') resolve(m.port!);
      else if (m.type === 'broker-fatal') reject(new Error(`${command}: ${m.message}`));
      else return;
      clearTimeout(timer);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${command} exited before it was ready`));
    });
  });
  return {
    child,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    },
  };
}

interface RssRun {
  idle_rss_mib: number | null;
  idle_anon_mib: number | null;
  idle_threads: number;
  loaded_rss_mib: number | null;
  per_1000_connections_mib: number | null;
}

async function measureOnce(server: Running, connections: number): Promise<RssRun> {
  const pid = server.child.pid!;
  const idle = await settledMemory(pid);
  let sockets: Socket[] = [];
  try {
    sockets = await connectMany(`http://127.0.0.1:${server.port}`, connections, 'stock');
    sockets.forEach((s, i) => {
      const name = `rss-${i}`;
      s.emit(ClientEvent.CONSUMER, { name, id: name, consumer_id: name });
    });
    await Promise.all(sockets.map((s) => pingBarrier(s, 60_000)));
    const loaded = await settledMemory(pid);
    return {
      idle_rss_mib: round(idle.rss / MIB, 1),
      idle_anon_mib: round(idle.anon / MIB, 1),
      idle_threads: idle.threads,
      loaded_rss_mib: round(loaded.rss / MIB, 1),
      per_1000_connections_mib: round(((loaded.rss - idle.rss) / MIB) * (1000 / connections), 2),
    };
  } finally {
    closeAll(sockets);
  }
}

function summarise(runs: RssRun[]) {
  const med = (key: keyof RssRun) => {
    const values = runs.map((r) => r[key]).filter((v): v is number => v !== null);
    return values.length > 0 ? median(values) : null;
  };
  const per1000 = med('per_1000_connections_mib');
  return {
    idle_rss_mib: med('idle_rss_mib'),
    idle_anon_mib: med('idle_anon_mib'),
    idle_threads: med('idle_threads'),
    loaded_rss_mib: med('loaded_rss_mib'),
    per_1000_connections_mib: per1000,
    per_connection_kib: per1000 === null ? null : round(per1000 * 1.024, 1),
    runs,
  };
}

/** Runs the scenario; see the module comment. */
export async function runRssBench(config: RssConfig, log: (line: string) => void) {
  log('packing and installing the npm package');
  const pkg = await packAndInstall();
  const dataRoot = mkdtempSync(join(tmpdir(), 'swb-bench-rss-'));
  try {
    const relayBundle = join(pkg.app, 'bare-relay.mjs');
    await build({
      entryPoints: [join(ROOT, 'bench/servers/bare-relay.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      packages: 'external',
      outfile: relayBundle,
      logLevel: 'warning',
    });
    let n = 0;
    const brokerArgs = () => ['--port', '0', '--data-dir', join(dataRoot, `data-${n++}`)];
    const start: Record<ServerName, () => Promise<Running>> = {
      installed: () => spawnServer(pkg.bin('switchboard-broker'), brokerArgs(), pkg.app),
      installed_memory: () =>
        spawnServer(
          pkg.bin('switchboard-broker'),
          [...brokerArgs(), '--storage', 'memory'],
          pkg.app,
        ),
      tsx: () =>
        spawnServer(process.execPath, ['--import', 'tsx', 'broker/cli.ts', ...brokerArgs()], ROOT),
      relay: () => spawnServer(process.execPath, [relayBundle], pkg.app),
    };
    const runs: Record<ServerName, RssRun[]> = {
      installed: [],
      installed_memory: [],
      tsx: [],
      relay: [],
    };
    const names = Object.keys(runs) as ServerName[];
    for (let r = 0; r < config.repeats; r++) {
      for (const name of r % 2 === 0 ? names : [...names].reverse()) {
        const server = await start[name]();
        try {
          const run = await measureOnce(server, config.connections);
          log(`${name} run ${r + 1}: ${JSON.stringify(run)}`);
          runs[name].push(run);
        } finally {
          await server.stop();
        }
      }
    }
    const servers = {
      installed: summarise(runs.installed),
      installed_memory: summarise(runs.installed_memory),
      tsx: summarise(runs.tsx),
      relay: summarise(runs.relay),
    };
    const diff = (a: number | null, b: number | null) =>
      a === null || b === null ? null : round(a - b, 1);
    const idleOver = diff(servers.installed.idle_rss_mib, servers.relay.idle_rss_mib);
    const perConnRatio = ratio(
      servers.installed.per_1000_connections_mib ?? NaN,
      servers.relay.per_1000_connections_mib ?? NaN,
    );
    return {
      connections: config.connections,
      repeats: config.repeats,
      install: pkg.install,
      tarball_bytes: pkg.tarballBytes,
      clients: 'stock socket.io-client defaults (polling, then WebSocket), one CONSUMER each',
      servers,
      installed_idle_minus_relay_mib: idleOver,
      installed_memory_idle_minus_relay_mib: diff(
        servers.installed_memory.idle_rss_mib,
        servers.relay.idle_rss_mib,
      ),
      tsx_idle_minus_relay_mib: diff(servers.tsx.idle_rss_mib, servers.relay.idle_rss_mib),
      per_connection_ratio_installed_over_relay: perConnRatio,
      per_connection_ratio_tsx_over_relay: ratio(
        servers.tsx.per_1000_connections_mib ?? NaN,
        servers.relay.per_1000_connections_mib ?? NaN,
      ),
      goal_idle_over_relay_mib: 20,
      goal_per_connection_ratio: 1.1,
      meets_goals:
        idleOver !== null && idleOver <= 20 && perConnRatio !== null && perConnRatio <= 1.1,
    };
  } finally {
    rmSync(dataRoot, { recursive: true, force: true });
    pkg.cleanup();
  }
}
