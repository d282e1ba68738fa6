/**
 * End to end: a clustered remote broker in the console's Overview. A private redis-server and
 * two broker processes clustered over it (node-a, node-b; auth on with an admin token, HTTP API
 * on); node-a is added as a remote connection. In Chromium, the Overview shows node-a's id and
 * a Cluster panel: Redis up, the Redis URL as the broker redacts it (the password never
 * appears), the prefix, both nodes (node-a marked as the answering one) and the relay counters.
 * Redis killed: the panel warns that messages are not relayed and lists node-a alone; Redis
 * back: it recovers. Screenshots (1280 and 390 px, no horizontal overflow) go to
 * test-results/cluster-*.png.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { addConnection, openSection } from '../support/console-nav';
import { startConsole, type RunningConsole, stopConsole } from '../support/console-process';
import { ClientEvent } from '../../shared/protocol-events';
import { connectConsumer, connectProducer, produceBatch } from '../support/fleet-clients';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { launchChromium } from '../support/chromium';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const ADMIN = 'cluster-admin-token-e2e-5c2f90d1b7aa';
// Sent as AUTH to a redis-server without a password (ioredis goes on with a warning): the
// broker must only ever show it as `***`.
const REDIS_PASSWORD = 'redis-pass-e2e-3f81c0';

const text = async (page: Page, testId: string): Promise<string> =>
  (await page.getByTestId(testId).first().textContent()) ?? '';
const count = (page: Page, testId: string): Promise<number> => page.getByTestId(testId).count();

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `cluster-${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, `cluster-${name}-390.png`), fullPage: true });
  // The panel alone, readable at phone width.
  await page
    .getByTestId('cluster-panel')
    .screenshot({ path: path.join(SHOTS, `cluster-${name}-panel-390.png`) });
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** Node's `tyo_mq_cluster_relayed_total{outcome="sent"}` (admin bearer). */
async function relayedSent(url: string): Promise<number> {
  const body = await (
    await fetch(`${url}/api/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
  ).text();
  const line = body
    .split('\n')
    .find((l) => l.startsWith('tyo_mq_cluster_relayed_total{outcome="sent"}'));
  return Number(line?.split(' ').pop() ?? NaN);
}

describe('a clustered broker in the Overview', () => {
  let dir: TempDir;
  let redis: RedisServer | null = null;
  const nodes: BrokerProcess[] = [];
  let app: RunningConsole | null = null;
  let browser: Browser | null = null;
  let producer: Socket | null = null;
  let watcher: Socket | null = null;

  beforeAll(async () => {
    dir = await makeTempDir('switchboard-e2e-cluster-');
  }, 10_000);

  afterAll(async () => {
    producer?.close();
    watcher?.close();
    await browser?.close();
    await stopConsole(app, 'SIGKILL');
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
    await dir.remove();
  }, 30_000);

  async function startNode(nodeId: string, redisUrl: string, prefix: string): Promise<void> {
    const settingsFile = path.join(dir.path, `${nodeId}.json`);
    writeFileSync(
      settingsFile,
      JSON.stringify({
        auth: {
          enabled: true,
          tokens: [{ token: ADMIN, realm: '*', role: 'admin' }],
          realms: { default: { required: false, allow_tokenless_consumers: true } },
        },
        http_api: { enabled: true },
        cluster: { enabled: true, redis_url: redisUrl, prefix, node_id: nodeId, heartbeat_ms: 500 },
      }),
    );
    nodes.push(
      await startBrokerProcess(
        [
          ...['--port', '0', '--storage', 'memory'],
          ...['--data-dir', path.join(dir.path, nodeId), '--settings', settingsFile],
        ],
        20_000,
        { TYO_MQ_ENV_FILE: path.join(dir.path, `${nodeId}.env`) },
      ),
    );
  }

  it('shows the nodes, warns while Redis is down and recovers', async () => {
    redis = await startRedisServer();
    const prefix = `e2e-${randomBytes(4).toString('hex')}`;
    const redisUrl = `redis://:${REDIS_PASSWORD}@127.0.0.1:${redis.port}`;
    await startNode('node-a', redisUrl, prefix);
    await startNode('node-b', redisUrl, prefix);
    const nodeA = nodes[0]!;

    app = await startConsole(path.join(dir.path, 'data'));
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(app.url);
    await expect.poll(() => text(page, 'overview-status'), { timeout: 15_000 }).toBe('running');
    // The local broker is not clustered: nothing new on its Overview.
    expect(await count(page, 'cluster-panel')).toBe(0);
    expect(await count(page, 'overview-node-id')).toBe(0);

    await addConnection(page, 'Node A', `${nodeA.url}/`, ADMIN);
    await page.getByTestId('connection-switcher').selectOption({ label: 'Node A' });
    await openSection(page, 'overview');

    // Both nodes, node-a answering; the URL redacted by the broker.
    await expect.poll(() => text(page, 'overview-status'), { timeout: 20_000 }).toBe('online');
    await expect.poll(() => count(page, 'cluster-node-node-b'), { timeout: 20_000 }).toBe(1);
    expect(await text(page, 'overview-node-id')).toBe('Node node-a');
    expect(await text(page, 'cluster-redis')).toBe('Redis up');
    expect(await count(page, 'cluster-redis-down')).toBe(0);
    expect(await text(page, 'cluster-redis-url')).toBe(`redis://:***@127.0.0.1:${redis.port}`);
    expect(await text(page, 'cluster-prefix')).toBe(prefix);
    const nodeRow = page.getByTestId('cluster-node-node-a');
    expect(await nodeRow.getAttribute('data-self')).toBe('true');
    expect(await nodeRow.textContent()).toContain('this connection');
    expect(await page.getByTestId('cluster-node-node-b').getAttribute('data-self')).toBeNull();
    expect(await text(page, 'cluster-node-node-b-seen')).toMatch(
      /^last seen (just now|[0-9] s ago)$/,
    );

    // Messages produced on node-a are relayed to a consumer on node-b: the counters say so.
    // Interest routing sends node-b only what it subscribed to, so probe until the consumer's
    // subscription is known on node-a, then count from there.
    const consumer = await connectConsumer(nodes[1]!.url, 'relay-watcher', 'fleet', 'job');
    watcher = consumer.socket;
    producer = await connectProducer(nodeA.url, 'fleet');
    const probe = producer;
    await expect
      .poll(
        () => {
          probe.emit(ClientEvent.PRODUCE, { event: 'job', message: 'probe', from: 'fleet' });
          return consumer.received.length > 0;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    // Probes of the poll may still be on their way: one last marked probe, relayed after them in
    // order, and once it arrived node-a has counted every probe it relayed.
    probe.emit(ClientEvent.PRODUCE, { event: 'job', message: 'last-probe', from: 'fleet' });
    await expect
      .poll(() => consumer.received.includes('last-probe'), { timeout: 10_000 })
      .toBe(true);
    const sentBefore = await relayedSent(nodeA.url);
    produceBatch(producer, 'job', 'fleet', 5);
    await consumer.waitFor(consumer.received.length + 5);
    await expect
      .poll(() => text(page, 'cluster-relayed'), { timeout: 20_000 })
      .toBe(`${sentBefore + 5} sent · 0 failed`);
    expect(await text(page, 'cluster-received')).toBe('0 routed · 0 invalid');
    expect(await page.content()).not.toContain(REDIS_PASSWORD);
    await shoot(page, 'up');

    // Redis gone: a clear warning, node-a alone.
    await redis.kill();
    await expect.poll(() => text(page, 'cluster-redis'), { timeout: 20_000 }).toBe('Redis down');
    expect(await text(page, 'cluster-redis-down')).toContain(
      'messages are not relayed to other nodes while Redis is down',
    );
    await expect.poll(() => count(page, 'cluster-node-node-b'), { timeout: 10_000 }).toBe(0);
    expect(await count(page, 'cluster-node-node-a')).toBe(1);
    expect(await text(page, 'overview-status')).toBe('online');
    await shoot(page, 'redis-down');

    // Redis back: the warning goes, node-b comes back.
    await redis.restart();
    await expect.poll(() => text(page, 'cluster-redis'), { timeout: 30_000 }).toBe('Redis up');
    await expect.poll(() => count(page, 'cluster-node-node-b'), { timeout: 20_000 }).toBe(1);
    expect(await count(page, 'cluster-redis-down')).toBe(0);
    await shoot(page, 'recovered');
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
