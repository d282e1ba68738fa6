/**
 * A real `redis-server` for one test file: started on a free loopback port with no persistence
 * (`--save '' --appendonly no`), in its own temp dir, and stopped by `stop()`. Never touches a
 * Redis already running on the standard port. Retries on another port when the chosen one was
 * taken between the probe and the bind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Stops the server (SIGKILL after 5 s) and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server (an outage: connections drop, nothing is kept). */
  kill(): Promise<void>;
  /** Starts it again on the same port after `kill()`. */
  restart(): Promise<void>;
  /** Sends `signal` to the server, e.g. `SIGSTOP` / `SIGCONT` to pause and resume it. */
  signal(signal: NodeJS.Signals): void;
}

async function ended(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

const BINARY = process.env.REDIS_SERVER_PATH ?? 'redis-server';

/** A loopback port free at the time of the call (nothing listens on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function startOn(port: number, dir: string, extra: string[]): Promise<ChildProcess> {
  const child = spawn(
    BINARY,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--protected-mode',
      'yes',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start on ${port}: ${out.slice(-500)}`));
    }, 10_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
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
      reject(new Error(`redis-server exited with ${code} on port ${port}: ${out.slice(-500)}`));
    });
  });
}

/**
 * Starts a private `redis-server`; call `stop()` in afterAll/afterEach. `args`: extra
 * redis-server options, e.g. `['--client-output-buffer-limit', 'pubsub 1mb 512kb 60']`.
 */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      let child = await startOn(port, dir, args);
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        stop: async () => {
          await ended(child, 'SIGTERM');
          await rm(dir, { recursive: true, force: true });
        },
        kill: () => ended(child, 'SIGKILL'),
        restart: async () => {
          await ended(child, 'SIGKILL');
          child = await startOn(port, dir, args);
        },
        signal: (signal) => {
          child.kill(signal);
        },
      };
    } catch (err) {
      lastError = err;
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
