/**
 * The Topic tree methods of the ConsoleService against a real local broker and a real
 * socket.io producer: a tree counts every message per topic (no sampling), pushes only changed
 * topics, reads the retained seed's state as `listRetained` reports it, serves a topic's detail
 * with its numeric series, and stops (its consumer leaves the broker, a last `stopped` update);
 * unknown trees and topics are `SWB_ERR_NOT_FOUND`, another connection cannot stop a tree.
 */
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import type { TopicTreeUpdate } from '../../shared/console-api-topics';
import type { SwitchboardError } from '../../shared/error-catalogue';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const connectionId = LOCAL_CONNECTION_ID;

describe('topic tree console service on the real local broker', () => {
  let dir: TempDir;
  let local: LocalConsole;
  let producer: Socket;

  beforeAll(async () => {
    dir = await makeTempDir();
    local = createLocalConsole({
      brokerPort: 0,
      dataDir: path.join(dir.path, 'data'),
      pollIntervalMs: 200,
      // Updates every 200 ms, not 1 s: subscriber counts (read every 5 updates) and the quiet
      // updates the test waits for come five times as fast (issue 26).
      topicTreePeriodMs: 200,
    });
    await local.startBroker();
    const url = `http://127.0.0.1:${local.supervisor.status().port}`;
    producer = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
    await new Promise<void>((resolve, reject) => {
      producer.once(ServerEvent.AUTH_OK, () => resolve());
      producer.once(ServerEvent.AUTH_FAIL, (r) => reject(new Error(JSON.stringify(r))));
      producer.once('connect', () =>
        producer.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role: 'producer' }),
      );
    });
  }, 60_000);

  afterAll(async () => {
    producer?.close();
    await local?.close();
    await dir?.remove();
  }, 30_000);

  it('counts per topic, serves a detail, and stops', async () => {
    const updates: TopicTreeUpdate[] = [];
    const off = local.service.on('topicTreeUpdate', (u) => updates.push(u));
    const { treeId } = await local.service.topicTreeStart({ connectionId, realm: 'default' });
    const mine = () => updates.filter((u) => u.treeId === treeId);
    // The first update says the tree is up; produce after it so the consumer is subscribed.
    await expect.poll(() => mine().length, { timeout: 10_000 }).toBeGreaterThan(0);
    for (let i = 0; i < 300; i += 1) {
      producer.emit(ClientEvent.PRODUCE, {
        event: `site/${i % 3}/temp`,
        from: 'sensor',
        message: { t: i, env: { rh: 50 } },
      });
    }
    await expect.poll(() => mine().at(-1)?.received, { timeout: 10_000 }).toBe(300);
    const listed = await local.service.listRetained({ connectionId, realm: 'default' });
    await expect.poll(() => mine().at(-1)?.retained).toBe(listed.state);
    const latest = new Map(mine().flatMap((u) => u.nodes.map((n) => [n.topic, n] as const)));
    expect([...latest.keys()].sort()).toEqual(['site/0/temp', 'site/1/temp', 'site/2/temp']);
    expect(latest.get('site/0/temp')).toMatchObject({ count: 100, subscribers: 0 });

    // Subscriber counts come from the broker's registrations (GET /api/clients), read every
    // few updates: a topic-mode consumer of site/+/temp and an exact one of site/0/temp.
    const url = `http://127.0.0.1:${local.supervisor.status().port}`;
    const consumer = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
    try {
      await new Promise<void>((resolve) => {
        consumer.once(ServerEvent.AUTH_OK, () => resolve());
        consumer.once('connect', () =>
          consumer.emit(ClientEvent.AUTHENTICATION, { realm: 'default', role: 'consumer' }),
        );
      });
      consumer.emit(ClientEvent.SUBSCRIBE, {
        event: 'site/+/temp',
        producer: 'TYO-MQ-ALL',
        mode: 'topic',
        consumer: 'dashboard',
      });
      consumer.emit(ClientEvent.SUBSCRIBE, {
        event: 'site/0/temp',
        producer: 'sensor',
        consumer: 'dashboard-2',
      });
      const counts = () => {
        const now = new Map(mine().flatMap((u) => u.nodes.map((n) => [n.topic, n] as const)));
        return ['site/0/temp', 'site/1/temp'].map((t) => now.get(t)?.subscribers);
      };
      await expect.poll(counts, { timeout: 15_000 }).toEqual([2, 1]);
    } finally {
      consumer.close();
    }
    expect(mine().at(-1)).toMatchObject({ topics: 3, overflow: 0, state: 'running' });

    const detail = await local.service.topicTreeNode({
      connectionId,
      treeId,
      topic: 'site/2/temp',
    });
    expect(detail.history).toHaveLength(20);
    expect(detail.history[0]).toMatchObject({
      from: 'sensor',
      payload: '{"t":299,"env":{"rh":50}}',
    });
    expect(detail.series.map((s) => s.field)).toEqual(['t', 'env.rh']);
    expect(detail.series[0]!.points.at(-1)?.v).toBe(299);
    await expect(
      local.service.topicTreeNode({ connectionId, treeId, topic: 'site/9/temp' }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_NOT_FOUND' } satisfies Partial<SwitchboardError>);

    // Quiet now: the next updates carry the rates falling to 0, then nothing, but keep coming.
    const seq = mine().at(-1)!.seq;
    await expect.poll(() => mine().at(-1)!.seq, { timeout: 10_000 }).toBeGreaterThan(seq + 1);
    expect(mine().at(-1)!.nodes).toEqual([]);

    expect(await local.service.topicTreeStop({ connectionId: 'other', treeId })).toEqual({
      stopped: false,
    });
    expect(await local.service.topicTreeStop({ connectionId, treeId })).toEqual({ stopped: true });
    expect(mine().at(-1)).toMatchObject({ state: 'stopped', error: null });
    await expect(
      local.service.topicTreeNode({ connectionId, treeId, topic: 'site/0/temp' }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_NOT_FOUND' });
    off();
  }, 30_000);
});
