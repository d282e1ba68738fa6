import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BrokerSupervisor } from '../../electron/services/broker-supervisor';
import { MetricsPoller, type BrokerSample } from '../../electron/services/metrics-poller';
import { HttpPath } from '../../shared/http-api';
import {
  connectConsumer,
  connectProducer,
  produceBatch,
  waitForRegistrations,
  type TestConsumer,
} from '../support/fleet-clients';
import { makeTempDir, type TempDir } from '../support/temp-dir';

describe('MetricsPoller against the real broker', () => {
  let dir: TempDir;
  let supervisor: BrokerSupervisor;
  let baseUrl: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = await makeTempDir();
    supervisor = new BrokerSupervisor({ port: 0, dataDir: path.join(dir.path, 'data') });
    const status = await supervisor.start();
    baseUrl = `http://127.0.0.1:${status.port}`;
  });

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await supervisor.stop();
    await dir.remove();
  });

  it('reads health, stats and counters, then sums produced/delivered and computes rates', async () => {
    const poller = new MetricsPoller({ target: { baseUrl } });
    const first = await poller.pollOnce();
    expect(first).toMatchObject({ reachable: true, error: null, rates: null });
    expect(first.health?.status).toBe('ok');
    expect(first.counters).toMatchObject({ produced: 0, delivered: 0 });
    // Not clustered: no relay counters (and no Cluster panel in the Overview).
    expect(first.counters?.cluster).toBeUndefined();
    expect(first.stats?.cluster).toBeUndefined();

    const consumer: TestConsumer = await connectConsumer(baseUrl, 'worker-1', 'fleet', 'job');
    const producer = await connectProducer(baseUrl, 'fleet');
    sockets.push(consumer.socket, producer);
    await waitForRegistrations(baseUrl, { consumers: 1, producers: 1 });
    produceBatch(producer, 'job', 'fleet', 25);
    await consumer.waitFor(25);

    const second = await poller.pollOnce();
    expect(second.counters).toMatchObject({ produced: 25, delivered: 25, connectionsCurrent: 2 });
    expect(second.counters?.connectionsTotal).toBeGreaterThanOrEqual(2);
    expect(second.stats?.realms.default?.producers).toEqual({ total: 1, online: 1 });
    expect(second.stats?.realms.default?.consumers).toEqual({ total: 1, online: 1 });
    expect(second.rates?.produced).toBeGreaterThan(0);
    expect(second.rates?.delivered).toBeGreaterThan(0);
    expect(poller.samples()).toEqual([first, second]);
  });

  it('numbers samples and computes rates on a monotonic clock, whatever the wall clock does', async () => {
    const poller = new MetricsPoller({ target: { baseUrl } });
    const first = await poller.pollOnce();
    const realNow = Date.now;
    const stepBack = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 3_600_000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await poller.pollOnce();
      expect(second.sampledAt).toBeLessThan(first.sampledAt);
      expect(second.seq).toBe(first.seq + 1);
      expect(second.rates).not.toBeNull();
      expect(second.rates?.produced).toBeGreaterThanOrEqual(0);
    } finally {
      stepBack.mockRestore();
    }
  });

  it('polls periodically, notifies listeners and keeps a bounded buffer', async () => {
    const poller = new MetricsPoller({ target: { baseUrl }, intervalMs: 20, capacity: 3 });
    const seen: BrokerSample[] = [];
    const unsubscribe = poller.onSample((sample) => seen.push(sample));
    poller.start();
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
    poller.stop();
    unsubscribe();
    expect(poller.samples()).toHaveLength(3);
    expect(poller.latest()).toBe(poller.samples()[2]);
    expect(seen.every((sample) => sample.reachable)).toBe(true);
  });
});

describe('MetricsPoller against unreachable or broken brokers', () => {
  it('reports a closed port as unreachable instead of throwing', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const poller = new MetricsPoller({ target: { baseUrl: `http://127.0.0.1:${port}` } });
    const sample = await poller.pollOnce();
    expect(sample).toMatchObject({ reachable: false, health: null, counters: null, rates: null });
    expect(sample.error?.code).toBe('SWB_ERR_BROKER_UNREACHABLE');
    expect(sample.error?.message).toMatch(/ECONNREFUSED/);
  });

  it('reports the configured error while there is no target', async () => {
    const poller = new MetricsPoller({
      target: () => null,
      unavailableError: {
        code: 'SWB_ERR_BROKER_NOT_RUNNING',
        message: 'Local broker is not running',
      },
    });
    expect((await poller.pollOnce()).error?.code).toBe('SWB_ERR_BROKER_NOT_RUNNING');
  });

  it('rejects answers that do not match the HTTP API schemas, and times out slow brokers', async () => {
    let statsBody = JSON.stringify({ realms: {}, connections_current: 'many' });
    const server = http.createServer((req, res) => {
      if (req.url === HttpPath.HEALTH) {
        res.end(
          JSON.stringify({ status: 'ok', version: '1.1.0', uptime_seconds: 3, node_id: null }),
        );
      } else if (req.url === HttpPath.STATS) {
        if (statsBody === 'hang') return; // never answers
        res.end(statsBody);
      } else {
        res.end('tyo_mq_connections_current 1\n');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const poller = new MetricsPoller({ target: { baseUrl }, timeoutMs: 300 });
      const invalid = await poller.pollOnce();
      expect(invalid.reachable).toBe(false);
      expect(invalid.error?.message).toMatch(
        /^Invalid \/api\/stats response: connections_current:/,
      );

      statsBody = 'hang';
      const slow = await poller.pollOnce();
      expect(slow.error?.message).toBe('Timed out after 300 ms');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
