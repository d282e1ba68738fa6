/**
 * Readiness of a cluster node (issue 23; docs/http-api.md "GET /ready"), with a real
 * `redis-server`: a started node answers 200 with `redis` and `catch_up` "ok"; with its Redis
 * killed it answers 503 `redis: "unreachable"` (liveness stays 200), and 200 again once Redis
 * is back. The catch-up flag of the inbox reader (`InboxReader.caughtUp`): false while the
 * backlog found at start is being read or its copies stored, true once they are — and it stays
 * true under later traffic; an empty inbox is caught up as soon as the reader reaches Redis.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendToInbox, defineInboxCommands } from '../../broker/cluster/inbox-append';
import { InboxReader } from '../../broker/cluster/inbox-reader';
import { HttpPath, ReadinessReason, ReadinessSchema } from '../../shared/http-api';
import type { Harness } from '../helpers/broker-harness';
import { startCluster } from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil, waitUntilAsync } from '../helpers/wait';

let redis: RedisServer;
let command: Redis;
const opened: Array<{ close(): Promise<unknown> | void }> = [];
beforeAll(async () => {
  redis = await startRedisServer();
  command = new Redis(redis.url, { enableAutoPipelining: true });
  defineInboxCommands(command);
});
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});
afterAll(async () => {
  command.disconnect();
  await redis.stop();
});

let n = 0;
const freshInbox = () => `ready-${process.pid}-${++n}:inbox:node-x`;

async function ready(h: Harness) {
  const res = await fetch(`${h.url}${HttpPath.READY}`);
  return { status: res.status, body: ReadinessSchema.parse(await res.json()) };
}

describe('GET /ready on a cluster node', () => {
  it('is 503 "unreachable" while its Redis is down and 200 again once it is back', async () => {
    // Its own Redis: this one is killed and restarted.
    const own = await startRedisServer();
    opened.push({ close: () => own.stop() });
    const cluster = await startCluster(own.url, ['a'], { http_api: { enabled: true } });
    opened.push(cluster);
    const [node] = cluster.nodes as [Harness];
    await waitUntilAsync(async () => (await ready(node)).status === 200, 'node a is ready');
    expect((await ready(node)).body).toEqual({
      ready: true,
      draining: false,
      checks: {
        listeners: ReadinessReason.OK,
        store: ReadinessReason.OK,
        redis: ReadinessReason.OK,
        catch_up: ReadinessReason.OK,
      },
    });

    await own.kill();
    await waitUntilAsync(
      async () => (await ready(node)).body.checks.redis === ReadinessReason.REDIS_UNREACHABLE,
      '/ready says Redis is unreachable',
      10_000,
    );
    const down = await ready(node);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ ready: false, checks: { catch_up: ReadinessReason.OK } });
    // Never the URL or an error text.
    expect(JSON.stringify(down.body)).not.toContain(String(own.port));
    expect((await fetch(`${node.url}${HttpPath.HEALTH}`)).status).toBe(200);

    await own.restart();
    await waitUntilAsync(
      async () => (await ready(node)).status === 200,
      '/ready answers 200 once Redis is back',
      15_000,
    );
  }, 60_000);
});

describe('InboxReader.caughtUp', () => {
  const quiet = pino({ level: 'silent' });

  function reader(inbox: string, handle: (text: string) => Promise<void> | null): InboxReader {
    const link = new Redis(redis.url);
    const r = new InboxReader(
      { inbox, cursorKey: `${inbox}:cursor` },
      link,
      command,
      handle,
      quiet,
    );
    opened.push(r);
    return r;
  }

  it('turns true once the backlog found at start is read and its copies are stored', async () => {
    const inbox = freshInbox();
    await appendToInbox(command, inbox, '1\n2', 2);
    await appendToInbox(command, inbox, '3', 1);
    const got: string[] = [];
    let stored!: () => void;
    const storing = new Promise<void>((resolve) => (stored = resolve));
    const r = reader(inbox, (text) => {
      got.push(text);
      // The last message's copies take their time to be stored.
      return text === '3' ? storing : null;
    });
    expect(r.caughtUp).toBe(false);
    r.start();
    await waitUntil(() => got.length === 3, 'the backlog is read');
    expect(r.caughtUp).toBe(false);
    stored();
    await waitUntil(() => r.caughtUp, 'caught up once the copies are stored');

    // Later traffic, even unfinished, does not make it fall behind again.
    await appendToInbox(command, inbox, '4', 1);
    await waitUntil(() => got.length === 4, 'the next message is read');
    expect(r.caughtUp).toBe(true);
  });

  it('is true at once on an empty inbox', async () => {
    const r = reader(freshInbox(), () => null);
    r.start();
    await waitUntil(() => r.caughtUp, 'caught up on an empty inbox');
  });
});
