/**
 * A real Redis Sentinel deployment for one test file: a master and a replica
 * (test/helpers/redis-server.ts, `--replicaof`) and `sentinels` sentinel processes
 * (`redis-server <conf> --sentinel`, default 1, quorum 1) on free loopback ports, each in its
 * own temp dir. Fast failover settings by default: `down-after-milliseconds` 1,000,
 * `failover-timeout` 3,000. `start` resolves once the replica is in sync and every sentinel
 * lists it as a healthy replica, so a failover can promote it at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startRedisServer, type RedisServer } from './redis-server';
import { delay } from './wait';

export interface SentinelSet {
  /** The master group name the sentinels monitor. */
  name: string;
  sentinels: { host: string; port: number }[];
  /** The two data servers, the initial master first. */
  servers: [RedisServer, RedisServer];
  /** The port the sentinels name as master now. */
  masterPort(): Promise<number>;
  /** The data server that is master now. */
  master(): Promise<RedisServer>;
  /** Resolves with the new master's port once the sentinels name another master than `port`. */
  waitForNewMaster(port: number, timeoutMs?: number): Promise<number>;
  /** Stops every process and removes their directories. */
  stop(): Promise<void>;
}

export interface SentinelSetOptions {
  sentinels?: number;
  name?: string;
  downAfterMs?: number;
  failoverTimeoutMs?: number;
}

const BINARY = process.env.REDIS_SERVER_PATH ?? 'redis-server';

/** Polls the async `probe` every 50 ms until it returns a value other than undefined. */
export async function pollFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${why}`);
    }
    await delay(50);
  }
}

/** Runs `fn` with a short-lived client of `port` (no retries), closing it afterwards. */
export async function withClient<T>(port: number, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

async function startSentinel(port: number, dir: string, lines: string[]): Promise<ChildProcess> {
  const conf = path.join(dir, `sentinel-${port}.conf`);
  await writeFile(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ...lines, ''].join('\n'));
  const child = spawn(BINARY, [conf, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sentinel did not start on ${port}: ${out.slice(-500)}`));
    }, 10_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      if (out.includes('+monitor master')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sentinel exited with ${code} on port ${port}: ${out.slice(-500)}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Starts master, replica and sentinels; call `stop()` in afterAll. */
export async function startSentinelSet(options: SentinelSetOptions = {}): Promise<SentinelSet> {
  const name = options.name ?? 'sb-master';
  const count = options.sentinels ?? 1;
  const started: RedisServer[] = [];
  const children: ChildProcess[] = [];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-sentinel-'));
  const stop = async (): Promise<void> => {
    await Promise.all(children.map(stopChild));
    await Promise.all(started.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // No 5 s wait before a full sync (Redis 7's repl-diskless-sync-delay), on either server:
    // after a failover the old master syncs from the new one.
    const fast = ['--repl-diskless-sync-delay', '0'];
    const master = await startRedisServer(fast);
    started.push(master);
    const replica = await startRedisServer([
      ...fast,
      '--replicaof',
      '127.0.0.1',
      String(master.port),
    ]);
    started.push(replica);
    await pollFor(
      () =>
        withClient(replica.port, async (c) =>
          /master_link_status:up/.test(await c.info('replication')) ? true : undefined,
        ),
      'the replica is in sync',
    );
    const lines = [
      `sentinel monitor ${name} 127.0.0.1 ${master.port} 1`,
      `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1_000}`,
      `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 3_000}`,
      `sentinel parallel-syncs ${name} 1`,
    ];
    const sentinels: { host: string; port: number }[] = [];
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      children.push(await startSentinel(port, dir, lines));
      sentinels.push({ host: '127.0.0.1', port });
    }
    for (const s of sentinels) {
      await pollFor(
        () =>
          withClient(s.port, async (c) => {
            const replicas = (await c.call('SENTINEL', 'REPLICAS', name)) as string[][];
            const healthy = replicas.some((fields) => {
              const flags = fields[fields.indexOf('flags') + 1] ?? '';
              return flags === 'slave';
            });
            const peers = (await c.call('SENTINEL', 'SENTINELS', name)) as unknown[];
            return healthy && peers.length === count - 1 ? true : undefined;
          }),
        `sentinel ${s.port} knows the replica and its peers`,
        30_000,
      );
    }
    const masterPort = async (): Promise<number> => {
      let last: unknown;
      for (const s of sentinels) {
        try {
          const addr = (await withClient(s.port, (c) =>
            c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name),
          )) as [string, string];
          return Number(addr[1]);
        } catch (err) {
          last = err;
        }
      }
      throw last;
    };
    return {
      name,
      sentinels,
      servers: [master, replica],
      masterPort,
      async master() {
        const port = await masterPort();
        const found = started.find((s) => s.port === port);
        if (!found) throw new Error(`no server on master port ${port}`);
        return found;
      },
      waitForNewMaster: (old, timeoutMs = 20_000) =>
        pollFor(
          async () => {
            const port = await masterPort();
            return port === old ? undefined : port;
          },
          `the sentinels promote a new master (old: ${old})`,
          timeoutMs,
        ),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
