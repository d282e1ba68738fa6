/**
 * Reads a node's relay inbox back from Redis: the messages it holds, not its entries (an entry
 * carries the messages a peer relayed in one turn of its event loop, `inbox-batch.ts`).
 */
import type { Redis } from 'ioredis';
import { entryTexts } from '../../broker/cluster/inbox-batch';

/** The message texts held by stream `key`, oldest first ([] when it does not exist). */
export async function inboxTexts(redis: Redis, key: string): Promise<string[]> {
  const entries = await redis.xrange(key, '-', '+');
  return entries.flatMap(([, fields]) => entryTexts(fields));
}

/** How many messages stream `key` holds. */
export async function inboxMessages(redis: Redis, key: string): Promise<number> {
  return (await inboxTexts(redis, key)).length;
}
