/**
 * Several server processes (the nodes of a cluster) measured as one server, plus the Redis
 * they share, for the cluster scenario (`scenarios/cluster.ts`).
 *
 * `ServerGroup` is a `ServerHandle`, so `measureRun`/`LoadProbe` work on it unchanged: a
 * sample is the sum of the nodes' samples (CPU, event-loop active/idle time, RSS, wire
 * bytes), so `server_cpu_pct` is the CPU of every node together (% of one core, may exceed
 * 100) and `server_elu` their mean event-loop utilisation. Each sample also reads the Redis
 * server's counters (`INFO`: CPU time and network bytes) at the same moment, and the group
 * keeps the last two samples, so that after a measurement `lastPhase()` splits the measured
 * phase per node and gives Redis's share.
 *
 * Units: CPU in % of one core, times in ms (CPU times µs), sizes in bytes.
 */
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { serverLoad, type ServerHandle, type ServerSample } from '../servers/server-process';

/** Counters of the Redis server at one instant (`INFO cpu`, `INFO stats`). */
export interface RedisCounters {
  /** `used_cpu_user + used_cpu_sys` of the redis-server process (main and I/O threads), µs. */
  cpuUs: number;
  /** `total_net_input_bytes` / `total_net_output_bytes` over every client connection. */
  netInBytes: number;
  netOutBytes: number;
  /** `performance.now()` of this process when the reply arrived, ms. */
  at: number;
}

/** Parses the `key:value` lines of an `INFO` reply. */
export function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) out[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return out;
}

/** Reads Redis's CPU and network counters (two small `INFO` sections, one round trip). */
export async function redisCounters(client: Redis): Promise<RedisCounters> {
  const [cpu, stats] = await Promise.all([client.info('cpu'), client.info('stats')]);
  const at = performance.now();
  const c = parseInfo(cpu);
  const s = parseInfo(stats);
  return {
    cpuUs: (Number(c.used_cpu_user) + Number(c.used_cpu_sys)) * 1e6,
    netInBytes: Number(s.total_net_input_bytes),
    netOutBytes: Number(s.total_net_output_bytes),
    at,
  };
}

/** Per-node and Redis figures of the phase between the group's last two samples. */
export interface GroupPhase {
  /** CPU of each node, % of one core, in the group's node order. */
  node_cpu_pct: number[];
  /** Kernel (system) CPU of each node, % of one core: socket writes and reads, epoll. */
  node_system_cpu_pct: number[];
  /** Event-loop utilisation of each node, 0–1. */
  node_elu: number[];
  /** Redis server CPU, % of one core (its `INFO` replies included, a few KiB per phase). */
  redis_cpu_pct: number;
  /** Redis server CPU time over the phase, µs. */
  redis_cpu_us: number;
  /** Bytes Redis received / sent over the phase (PUBLISHes in, pub/sub pushes out). */
  redis_net_in_bytes: number;
  redis_net_out_bytes: number;
}

interface GroupSample {
  nodes: ServerSample[];
  redis: RedisCounters;
}

function sumSamples(samples: readonly ServerSample[]): ServerSample {
  const first = samples[0]!;
  const sum: ServerSample = {
    cpu: { user: 0, system: 0 },
    elu: { idle: 0, active: 0, utilization: 0 },
    rssBytes: 0,
    // Each process has its own clock origin: differences of the first node's stand for all.
    at: first.at,
    wire: { in: 0, out: 0 },
    threads: {},
  };
  for (const s of samples) {
    sum.cpu.user += s.cpu.user;
    sum.cpu.system += s.cpu.system;
    sum.elu.idle += s.elu.idle;
    sum.elu.active += s.elu.active;
    sum.rssBytes += s.rssBytes;
    sum.wire.in += s.wire.in;
    sum.wire.out += s.wire.out;
    Object.assign(sum.threads, s.threads); // thread ids are unique machine-wide
  }
  const total = sum.elu.idle + sum.elu.active;
  sum.elu.utilization = total > 0 ? sum.elu.active / total : 0;
  return sum;
}

/** See the module comment. `stop()` stops every node (not Redis, which the caller owns). */
export class ServerGroup implements ServerHandle {
  readonly kind = 'broker';
  private readonly last: GroupSample[] = [];

  constructor(
    readonly nodes: readonly ServerHandle[],
    private readonly redis: Redis,
  ) {
    if (nodes.length === 0) throw new Error('ServerGroup: no nodes');
  }

  get port(): number {
    return this.nodes[0]!.port;
  }
  get url(): string {
    return this.nodes[0]!.url;
  }
  get pid(): number {
    return this.nodes[0]!.pid;
  }

  async sample(): Promise<ServerSample> {
    const [nodes, redis] = await Promise.all([
      Promise.all(this.nodes.map((n) => n.sample())),
      redisCounters(this.redis),
    ]);
    this.last.push({ nodes, redis });
    if (this.last.length > 2) this.last.shift();
    return sumSamples(nodes);
  }

  async profile(action: 'start' | 'stop'): Promise<string | null> {
    const files = await Promise.all(this.nodes.map((n) => n.profile(action)));
    const written = files.filter((f): f is string => f !== null);
    return written.length > 0 ? written.join(',') : null;
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
  }

  /** Splits the phase between the last two samples (see `GroupPhase`). */
  lastPhase(): GroupPhase {
    const [a, b] = this.last;
    if (!a || !b) throw new Error('ServerGroup.lastPhase: fewer than two samples');
    const loads = a.nodes.map((s, i) => serverLoad(s, b.nodes[i]!));
    const redisCpuUs = b.redis.cpuUs - a.redis.cpuUs;
    const wallMs = b.redis.at - a.redis.at;
    return {
      node_cpu_pct: loads.map((l) => l.cpuPct),
      node_system_cpu_pct: a.nodes.map((s, i) => {
        const e = b.nodes[i]!;
        return e.at > s.at ? ((e.cpu.system - s.cpu.system) / 1000 / (e.at - s.at)) * 100 : NaN;
      }),
      node_elu: loads.map((l) => l.elu),
      redis_cpu_pct: wallMs > 0 ? (redisCpuUs / 1000 / wallMs) * 100 : Number.NaN,
      redis_cpu_us: redisCpuUs,
      redis_net_in_bytes: b.redis.netInBytes - a.redis.netInBytes,
      redis_net_out_bytes: b.redis.netOutBytes - a.redis.netOutBytes,
    };
  }
}
