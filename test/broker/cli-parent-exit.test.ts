/**
 * The broker as the console runs it (a forked `broker/cli.ts`, logs piped to the parent) must
 * never outlive its parent nor spin on a closed log pipe (issue 8 item 14). Real processes: a
 * stand-in parent (test/support/broker-parent.ts) is SIGKILLed at chosen moments; afterwards the
 * broker is gone and a new broker can take the same port and the same SQLite store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { io } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { brokerCliArgv } from '../helpers/broker-cli';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { processAlive } from '../support/supervisor-helpers';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const PARENT = fileURLToPath(new URL('../support/broker-parent.ts', import.meta.url));

// The cases run concurrently (issue 26): each has its own port and data directory, and most of
// their time is waiting for processes to start and exit. What they open is closed at the end.
const dirs: TempDir[] = [];
const pids: number[] = [];
const brokers: BrokerProcess[] = [];
const parents: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(brokers.splice(0).map((broker) => broker.stop()));
  for (const parent of parents.splice(0)) if (parent.exitCode === null) parent.kill('SIGKILL');
  // Whatever a failed test left behind must not keep running.
  for (const pid of pids.splice(0)) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  await Promise.all(dirs.splice(0).map((dir) => dir.remove()));
});

/** A data directory of the case's own, removed at the end of the file. */
async function dataDirectory(): Promise<string> {
  const dir = await makeTempDir();
  dirs.push(dir);
  return path.join(dir.path, 'data');
}

/** A port that was free a moment ago (the broker under test binds it explicitly). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the stand-in parent; resolves lines of its stdout as they come. */
function startParent(mode: string, brokerArgs: string[]) {
  const parent = spawn(
    process.execPath,
    ['--import', 'tsx', PARENT, mode, '--', '--host', '127.0.0.1', ...brokerArgs],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'info' },
    },
  );
  parents.push(parent);
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  let buffered = '';
  parent.stdout?.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((w) => line.startsWith(w.prefix))) waiter.resolve(line);
    }
  });
  const line = (prefix: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen) return resolve(seen);
      const timer = setTimeout(() => reject(new Error(`no "${prefix}" line`)), 90_000);
      waiters.push({
        prefix,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()));
  return { parent, line, exited };
}

async function brokerPid(line: (prefix: string) => Promise<string>): Promise<number> {
  const pid = Number((await line('pid ')).slice(4));
  pids.push(pid);
  return pid;
}

/** Proves the port and the SQLite store lock are free: a new broker takes both. */
async function expectReusable(port: number, dataDir: string): Promise<void> {
  const next = await startBrokerProcess(['--port', String(port), '--data-dir', dataDir], 90_000);
  brokers.push(next);
  expect(next.port).toBe(port);
}

describe.concurrent('a broker whose parent dies', () => {
  it('exits when the parent is killed between fork and ready', async ({ expect }) => {
    const dataDir = await dataDirectory();
    const port = await freePort();
    const { line, exited } = startParent('die-at-once', [
      '--port',
      String(port),
      '--data-dir',
      dataDir,
    ]);
    const pid = await brokerPid(line);
    await exited;
    await expect.poll(() => processAlive(pid), { timeout: 60_000, interval: 100 }).toBe(false);
    await expectReusable(port, dataDir);
  }, 180_000);

  it('exits when the parent is killed after the ready message', async ({ expect }) => {
    const dataDir = await dataDirectory();
    const port = await freePort();
    const { line, exited } = startParent('die-on-ready', [
      '--port',
      String(port),
      '--data-dir',
      dataDir,
    ]);
    const pid = await brokerPid(line);
    await line('ready ');
    await exited;
    await expect.poll(() => processAlive(pid), { timeout: 60_000, interval: 100 }).toBe(false);
    await expectReusable(port, dataDir);
  }, 180_000);
});

describe.concurrent('a broker whose log pipe is closed', () => {
  it('does not spin on EPIPE and honours SIGTERM (supervised)', async ({ expect }) => {
    const dataDir = await dataDirectory();
    const { line } = startParent('close-logs', ['--port', '0', '--data-dir', dataDir]);
    const pid = await brokerPid(line);
    const port = Number((await line('ready ')).slice(6));
    await line('closed');
    // Make it log (HELLO is logged at info) into the closed pipe.
    const client = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], forceNew: true });
    client.emit('HELLO', { name: 'x', type: 'probe' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    client.close();
    if (processAlive(pid)) process.kill(pid, 'SIGTERM');
    await expect.poll(() => processAlive(pid), { timeout: 60_000, interval: 100 }).toBe(false);
    await expectReusable(port, dataDir);
  }, 180_000);

  it('does not spin on EPIPE and honours SIGTERM (run from a shell)', async ({ expect }) => {
    const dataDir = await dataDirectory();
    const [node, argv] = brokerCliArgv([
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      dataDir,
    ]);
    const child = spawn(node, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'info' },
    });
    pids.push(child.pid as number);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // The first line is pino's "broker listening" record; then stop reading both pipes.
    const port = await new Promise<number>((resolve) => {
      child.stdout?.setEncoding('utf8').once('data', (text: string) => {
        resolve((JSON.parse(text.split('\n')[0] as string) as { port: number }).port);
      });
    });
    child.stdout?.destroy();
    child.stderr?.destroy();
    const client = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], forceNew: true });
    client.emit('HELLO', { name: 'x', type: 'probe' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    client.close();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await exited;
    clearTimeout(timer);
    expect(code).toBe(0);
  }, 180_000);
});

describe.concurrent('the broker logger on a closed pipe', () => {
  it('stops writing instead of retrying (info lines, then fatal, then exit)', async ({
    expect,
  }) => {
    const logger = fileURLToPath(new URL('../../broker/logging/logger.ts', import.meta.url));
    const script = [
      `const { createLogger } = await import(${JSON.stringify(logger)});`,
      "const log = createLogger({ level: 'info' });",
      'setTimeout(() => {',
      "  for (let i = 0; i < 100; i += 1) log.info({ i }, 'line into a closed pipe');",
      "  log.fatal('fatal flushes synchronously');",
      '  process.exit(7);',
      '}, 500);',
    ].join('\n');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    pids.push(child.pid as number);
    child.stdout?.destroy();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await exited;
    clearTimeout(timer);
    expect(code).toBe(7);
  }, 120_000);
});
