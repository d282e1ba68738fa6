/** The test helper's `redis-server` is real, private and stopped afterwards. */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedisServer } from '../helpers/redis-server';

describe('startRedisServer', () => {
  it('starts a private server that answers, and stops it', async () => {
    const server = await startRedisServer();
    const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    client.disconnect();
    await server.stop();
    const after = new Redis(server.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    after.on('error', () => {});
    await expect(after.connect()).rejects.toThrow();
    after.disconnect();
  });
});
