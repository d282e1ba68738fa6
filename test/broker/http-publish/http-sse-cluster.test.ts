/**
 * SSE across a cluster (`spec/protocol-extensions.md` §5.6, §5.9, R67) over a real Redis: a
 * message relayed from a peer — a reference node's wrapper, or an HTTP publish on another
 * Switchboard node — reaches the local streams with a fresh `sse-` id.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/broker-harness';
import { startCluster, type ClusterNodes } from '../../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { openSse } from '../../helpers/sse-reader';
import { waitUntilAsync } from '../../helpers/wait';
import { bearer, ON, publishJson, TOKENS } from './http-publish-fixtures';

let redis: RedisServer;
let cluster: ClusterNodes;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});
beforeEach(async () => {
  cluster = await startCluster(
    redis.url,
    ['node-a', 'node-b'],
    { ...ON, auth: { enabled: true, auto_admin_token: false, tokens: TOKENS } },
    { env: {} },
  );
  [a, b] = cluster.nodes as [Harness, Harness];
});
afterEach(async () => {
  await cluster.close();
});

describe('SSE and the cluster relay', () => {
  it("R67: a peer's relayed payload reaches a local stream as event: message", async () => {
    const s = await openSse(b, '/sub/acme/relayed', bearer('sub-acme'));
    const pub = new Redis(redis.url);
    try {
      await pub.publish(
        `${cluster.prefix}:messages`,
        JSON.stringify({
          node_id: '9f1c2e3a4b5c6d7e',
          payload: {
            realm: 'acme',
            event: 'relayed',
            message: { from: 'peer-node', k: 9 },
            producer: 'http:peer',
            contentType: 'application/json',
          },
        }),
      );
      const [frame] = await s.waitFrames(1);
      expect(frame?.event).toBe('message');
      expect(frame?.id).toMatch(/^sse-[0-9a-f]{16}$/);
      expect(frame?.data).toEqual({
        event: 'relayed',
        data: { from: 'peer-node', k: 9 },
        producer: 'http:peer',
        content_type: 'application/json',
      });
    } finally {
      pub.disconnect();
    }
  });

  it('an HTTP publish on node A reaches a stream on node B with the same id (Note 5-D)', async () => {
    const s = await openSse(b, '/sub/acme/notify', bearer('sub-acme'));
    // B's new interest reaches A asynchronously (docs/cluster.md "The race"): publish until
    // one arrives, then check that it carries the id A answered for it.
    const ids: unknown[] = [];
    await waitUntilAsync(async () => {
      const r = await publishJson(a, '/pub/acme/notify', { n: ids.length });
      expect(r.status).toBe(202);
      ids.push(r.body.msg_id);
      return s.frames.length > 0;
    }, 'a publish on A reached the stream on B');
    const [frame] = await s.waitFrames(1);
    const n = (frame?.data as { data: { n: number } }).data.n;
    expect(frame?.id).toBe(ids[n]);
    expect(frame?.data).toMatchObject({ event: 'notify', producer: 'http:581e7ddd' });
  });
});
