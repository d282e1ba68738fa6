import net from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createForkLauncher } from '../../electron/services/broker-launcher';
import { BrokerSupervisor } from '../../electron/services/broker-supervisor';
import { backoffDelay } from '../../electron/services/supervisor-options';
import { httpGetText } from '../../electron/services/http-get';
import { HttpPath } from '../../shared/http-api';
import { SwitchboardError } from '../../shared/error-catalogue';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { processAlive, waitForStatus } from '../support/supervisor-helpers';

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    const options = { initialMs: 500, maxMs: 30_000 };
    expect([0, 1, 2, 3, 5, 6, 7, 100].map((n) => backoffDelay(n, options))).toEqual([
      500, 1_000, 2_000, 4_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });
});

describe('BrokerSupervisor with the real broker', () => {
  let dir: TempDir;
  let supervisor: BrokerSupervisor | null = null;
  let blocker: net.Server | null = null;

  beforeEach(async () => {
    dir = await makeTempDir();
  });

  afterEach(async () => {
    await supervisor?.stop();
    supervisor = null;
    await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
    blocker = null;
    await dir.remove();
  });

  it('starts, reports ready on a free port, keeps logs and stops cleanly', async () => {
    supervisor = new BrokerSupervisor({ port: 0, dataDir: path.join(dir.path, 'data') });
    const states: string[] = [];
    supervisor.onStatus((status) => states.push(status.state));
    const status = await supervisor.start();
    expect(status.state).toBe('running');
    expect(status.port).toBeGreaterThan(0);
    expect(status.pid).toBeTypeOf('number');
    expect(status.startedAt).toBeTypeOf('number');
    expect(supervisor.endpoint()).toEqual({ host: '127.0.0.1', port: status.port });

    const health = await httpGetText(`http://127.0.0.1:${status.port}${HttpPath.HEALTH}`);
    expect(health.status).toBe(200);
    // pino lines arrive asynchronously after the ready message.
    await expect.poll(() => supervisor?.logs().length ?? 0).toBeGreaterThan(0);
    expect(supervisor.logs()[0]?.stream).toBe('stdout');

    const pid = status.pid as number;
    await supervisor.stop();
    expect(supervisor.status()).toMatchObject({ state: 'stopped', pid: null, lastError: null });
    expect(processAlive(pid)).toBe(false);
    expect(states).toEqual(['starting', 'starting', 'running', 'stopped']);
  });

  it('restarts a broker killed with SIGKILL on the same port', async () => {
    supervisor = new BrokerSupervisor({
      port: 0,
      dataDir: path.join(dir.path, 'data'),
      backoff: { initialMs: 200 },
    });
    const first = await supervisor.start();
    process.kill(first.pid as number, 'SIGKILL');

    const restarting = await waitForStatus(supervisor, (s) => s.state === 'restarting');
    expect(restarting.restarts).toBe(1);
    expect(restarting.lastError).toBe('Broker was killed by SIGKILL');

    const second = await waitForStatus(supervisor, (s) => s.state === 'running');
    expect(second.pid).not.toBe(first.pid);
    expect(second.port).toBe(first.port);
    expect(second.lastError).toBeNull();
    const health = await httpGetText(`http://127.0.0.1:${second.port}${HttpPath.HEALTH}`);
    expect(health.status).toBe(200);
  });

  it('fails without restarting when the port is taken', async () => {
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker?.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    supervisor = new BrokerSupervisor({ port, dataDir: path.join(dir.path, 'data') });

    const error = await supervisor.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SwitchboardError);
    expect((error as SwitchboardError).code).toBe('SWB_ERR_PORT_IN_USE');
    expect((error as SwitchboardError).message).toBe(`Port ${port} is already in use`);
    expect(supervisor.status()).toMatchObject({
      state: 'failed',
      port,
      pid: null,
      restarts: 0,
      lastError: `Port ${port} is already in use`,
    });
  });

  it('fails without restarting on invalid settings', async () => {
    const settings = path.join(dir.path, 'settings.json');
    await writeFile(settings, '{ not json');
    supervisor = new BrokerSupervisor({
      port: 0,
      dataDir: path.join(dir.path, 'data'),
      settingsFile: settings,
    });
    const error = await supervisor.start().catch((e: unknown) => e);
    expect((error as SwitchboardError).code).toBe('SWB_ERR_VALIDATION');
    expect(supervisor.status().state).toBe('failed');
    expect(supervisor.status().lastError).toBeTruthy();
  });

  it('fails at once, without restarting, when the address cannot be used', async () => {
    // 192.0.2.1 (TEST-NET-1) is never an address of this machine: EADDRNOTAVAIL.
    supervisor = new BrokerSupervisor({
      port: 0,
      host: '192.0.2.1',
      dataDir: path.join(dir.path, 'data'),
      backoff: { initialMs: 50 },
    });
    const error = await supervisor.start().catch((e: unknown) => e);
    expect((error as SwitchboardError).code).toBe('SWB_ERR_VALIDATION');
    expect((error as SwitchboardError).message).toBe(
      "Cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine (EADDRNOTAVAIL). Use --host 127.0.0.1, 0.0.0.0 or one of this machine's addresses.",
    );
    expect(supervisor.status()).toMatchObject({ state: 'failed', restarts: 0, pid: null });
  }, 120_000);

  it('restarts a broker that is restarted on request, without counting it as a crash', async () => {
    supervisor = new BrokerSupervisor({ port: 0, dataDir: path.join(dir.path, 'data') });
    const first = await supervisor.start();
    const second = await supervisor.restart();
    expect(second.state).toBe('running');
    expect(second.pid).not.toBe(first.pid);
    expect(second.restarts).toBe(0);
    expect(processAlive(first.pid as number)).toBe(false);
  });
});

describe('BrokerSupervisor with misbehaving processes', () => {
  let dir: TempDir;
  let supervisor: BrokerSupervisor | null = null;

  beforeEach(async () => {
    dir = await makeTempDir();
  });

  afterEach(async () => {
    await supervisor?.stop();
    supervisor = null;
    await dir.remove();
  });

  async function script(name: string, source: string): Promise<string> {
    const file = path.join(dir.path, name);
    await writeFile(file, source);
    return file;
  }

  it('retries a process that crashes before ready, with growing delays, until stopped', async () => {
    const entry = await script('crash.mjs', 'process.exit(1);\n');
    supervisor = new BrokerSupervisor({
      port: 0,
      dataDir: path.join(dir.path, 'data'),
      launcher: createForkLauncher({ entry, execArgv: [] }),
      backoff: { initialMs: 50, maxMs: 200 },
    });
    const started = supervisor.start().catch((e: unknown) => e);
    const status = await waitForStatus(supervisor, (s) => s.restarts >= 3);
    expect(status.lastError).toBe('Broker exited with code 1');
    await supervisor.stop();
    expect(((await started) as SwitchboardError).code).toBe('SWB_ERR_BROKER_NOT_RUNNING');
    expect(supervisor.status().state).toBe('stopped');
  });

  it('gives up after maxStartFailures exits without a ready message', async () => {
    const entry = await script('crash.mjs', 'process.exit(1);\n');
    supervisor = new BrokerSupervisor({
      port: 0,
      dataDir: path.join(dir.path, 'data'),
      launcher: createForkLauncher({ entry, execArgv: [] }),
      backoff: { initialMs: 20, maxMs: 50 },
      maxStartFailures: 3,
    });
    const error = await supervisor.start().catch((e: unknown) => e);
    expect((error as SwitchboardError).code).toBe('SWB_ERR_BROKER_NOT_RUNNING');
    const reason = 'Broker exited with code 1 (gave up after 3 attempts to start it)';
    expect((error as SwitchboardError).message).toBe(reason);
    expect(supervisor.status()).toMatchObject({ state: 'failed', restarts: 2, lastError: reason });
    // A restart (the UI's button) settles the same way instead of hanging.
    const again = await supervisor.restart().catch((e: unknown) => e);
    expect((again as SwitchboardError).code).toBe('SWB_ERR_BROKER_NOT_RUNNING');
  }, 60_000);

  it('kills a process that never reports ready', async () => {
    const entry = await script('silent.mjs', 'setInterval(() => {}, 1000);\n');
    supervisor = new BrokerSupervisor({
      port: 0,
      dataDir: path.join(dir.path, 'data'),
      launcher: createForkLauncher({ entry, execArgv: [] }),
      readyTimeoutMs: 300,
      backoff: { initialMs: 5_000 },
    });
    void supervisor.start().catch(() => undefined);
    const status = await waitForStatus(supervisor, (s) => s.state === 'restarting');
    expect(status.lastError).toBe('Broker did not report ready within 300 ms');
  });

  it('escalates to SIGKILL when a process ignores SIGTERM', async () => {
    const entry = await script(
      'stubborn.mjs',
      [
        "process.on('SIGTERM', () => {});",
        "process.send({ type: 'broker-ready', port: 1234, host: '127.0.0.1', pid: process.pid, version: 'test' });",
        'setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    supervisor = new BrokerSupervisor({
      port: 0,
      dataDir: path.join(dir.path, 'data'),
      launcher: createForkLauncher({ entry, execArgv: [] }),
      stopTimeoutMs: 300,
    });
    const status = await supervisor.start();
    expect(status.port).toBe(1234);
    await supervisor.stop();
    expect(supervisor.status().state).toBe('stopped');
    expect(processAlive(status.pid as number)).toBe(false);
  });
});
