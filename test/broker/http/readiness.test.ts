/**
 * Readiness and the graceful drain of an embedded broker (issue 23; docs/http-api.md
 * "GET /ready", "Drain"), on real brokers and real HTTP: `/ready` and `/readyz` answer 200 once
 * the listeners are bound (MQTT too when enabled), with the same document as
 * `broker.readiness()`; not before `listen()` or while an attached server is not listening;
 * `drain()` turns them 503 (`draining: true`) at once while new clients are still accepted
 * during the grace, `close()` ends the grace, and the drain reports what it closed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createBroker } from '../../../broker/index';
import { HttpPath, ReadinessReason, ReadinessSchema } from '../../../shared/http-api';
import { startBroker, type Harness } from '../../helpers/broker-harness';

const quiet = pino({ level: 'silent' });
const opened: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function ready(url: string, path: string = HttpPath.READY) {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, body: ReadinessSchema.parse(await res.json()) };
}

const ALL_OK = {
  listeners: ReadinessReason.OK,
  store: ReadinessReason.OK,
  redis: ReadinessReason.NOT_CLUSTERED,
  catch_up: ReadinessReason.NOT_CLUSTERED,
};

describe('GET /ready', () => {
  it('answers 200 on /ready and /readyz of a started broker, the same as readiness()', async () => {
    const h = await startBroker({ http_api: { enabled: true }, mqtt: { enabled: true, port: 0 } });
    opened.push(h);
    for (const path of [HttpPath.READY, HttpPath.READYZ]) {
      const { status, body } = await ready(h.url, path);
      expect({ path, status, body }).toEqual({
        path,
        status: 200,
        body: { ready: true, draining: false, checks: ALL_OK },
      });
    }
    expect(h.broker.readiness()).toEqual({ ready: true, draining: false, checks: ALL_OK });
    const res = await fetch(`${h.url}${HttpPath.READY}`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    await res.body?.cancel();
  });

  it('is not ready before listen() nor while an attached server is not listening', async () => {
    const broker = createBroker({ http_api: { enabled: true } }, { logger: quiet });
    opened.push(broker);
    expect(broker.readiness()).toMatchObject({
      ready: false,
      checks: { listeners: ReadinessReason.NOT_LISTENING },
    });
    const server: Server = createServer();
    broker.attach(server);
    expect(broker.readiness().checks.listeners).toBe(ReadinessReason.NOT_LISTENING);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    opened.push({ close: () => new Promise((resolve) => server.close(resolve)) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await ready(url)).toEqual({
      status: 200,
      body: { ready: true, draining: false, checks: ALL_OK },
    });
  });
});

describe('drain()', () => {
  it('answers 503 draining at once, still accepts clients in the grace, and close() ends it', async () => {
    const h: Harness = await startBroker({ http_api: { enabled: true } });
    opened.push(h);
    const early = await h.consumer('early');
    const drained = h.broker.drain({ graceMs: 600_000, timeoutMs: 2_000, reason: 'test' });
    // At once: the very next probe sees it.
    expect(h.broker.readiness()).toEqual({ ready: false, draining: true, checks: ALL_OK });
    expect(await ready(h.url)).toEqual({
      status: 503,
      body: { ready: false, draining: true, checks: ALL_OK },
    });
    expect((await fetch(`${h.url}${HttpPath.HEALTH}`)).status).toBe(200);
    // The grace: a client a balancer still sends here is served.
    const late = await h.consumer('late');
    expect(late.connected && early.connected).toBe(true);
    await h.broker.close();
    const report = await drained;
    expect(report).toMatchObject({ connectionsClosed: 2, connectionsCutShort: 0, workCutShort: 0 });
    expect(report.workFinished).toBeGreaterThanOrEqual(0);
    expect(h.broker.readiness()).toMatchObject({
      ready: false,
      draining: true,
      checks: {
        listeners: ReadinessReason.NOT_LISTENING,
        store: ReadinessReason.STORE_CLOSED,
      },
    });
    // Joining a stop that is over resolves with it.
    expect(await h.broker.drain()).toBe(report);
  });
});
