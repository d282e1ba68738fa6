/**
 * Moving a durable consumer's stored copies to the node that took it over (issue 21 item 7;
 * docs/cluster.md "A consumer that moves between nodes"), for nodes with their own stores
 * (SQLite, memory) on the streams relay. A shared Redis store needs no move: the copies are
 * the new owner's already.
 *
 * The old node reads the queue `(realm, key, consumer_id)` oldest first and adds each copy to
 * the new owner's inbox as `{"handover": {realm, key, consumer, consumer_id, id, producer,
 * message, attempts, expires_at}, "node_id": <old node>}`, then deletes it from its own store
 * once Redis has taken them all. The new owner stores each under the same id with its attempt
 * count (so a copy already delivered is marked `redelivered` next time, and one never
 * delivered is not) and the time it has left, then replays the queue if the consumer is live.
 * Order: the copies move in queue order on one connection and are read in inbox order; they
 * arrive after the messages the new owner delivered since the move (the move starts when the
 * old node hears of it).
 *
 * Faults: a copy the old node could not hand over stays in its store (retried the next time
 * the consumer is taken over; logged). A node killed between the inbox write and the delete
 * hands the same ids over again on the next move; the new owner keeps one copy per id.
 */
import { z } from 'zod';
import type { DeliveryEnvelope } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import type { MessageStore } from '../storage/message-store';
import type { RedisLinks } from './redis-links';
import { appendToInbox } from './inbox-append';
import { inboxKey } from './relay-members';

/** Every handover entry starts so (told apart from relayed messages without parsing). */
export const HANDOVER_PREFIX = '{"handover":';

const NAME_MAX = 4_096;
const HandoverEntry = z.object({
  handover: z.object({
    realm: z.string().max(NAME_MAX),
    key: z.string().min(1).max(NAME_MAX),
    consumer: z.string().min(1).max(NAME_MAX),
    consumer_id: z.string().min(1).max(NAME_MAX),
    id: z.string().min(1).max(200),
    producer: z.string().max(NAME_MAX),
    message: z.record(z.string(), z.unknown()),
    attempts: z.number().int().nonnegative(),
    expires_at: z.number().nullable(),
  }),
  node_id: z.string().min(1).max(128),
});
type Handover = z.infer<typeof HandoverEntry>['handover'];

export interface QueueHandoverDeps {
  nodeId: string;
  prefix: string;
  links: RedisLinks;
  store: MessageStore;
  logger: Logger;
  /** Replays `(realm, key)` to `consumer` if it is live here (after copies were handed over). */
  replay: (realm: string, key: string, consumer: string) => void;
}

export class QueueHandover {
  /** Queues with copies stored since their last replay: `realm \0 key \0 consumer`. */
  private readonly toReplay = new Set<string>();

  constructor(private readonly deps: QueueHandoverDeps) {}

  /**
   * Hands the queue `(realm, key, consumerId)` over to `owner`; resolves with the number of
   * copies moved. Never rejects: a failure leaves the copies here, logged.
   */
  async send(
    realm: string,
    key: string,
    consumer: string,
    consumerId: string,
    owner: string,
  ): Promise<number> {
    const { store, links, logger, nodeId, prefix } = this.deps;
    try {
      const entries = await store.dequeue(realm, key, consumerId);
      if (entries.length === 0) return 0;
      const inbox = inboxKey(prefix, owner);
      await Promise.all(
        entries.map((entry) => {
          const handover: Handover = {
            realm,
            key,
            consumer,
            consumer_id: consumerId,
            id: entry.id,
            producer: entry.producer,
            message: entry.message as unknown as Record<string, unknown>,
            attempts: entry.attempts,
            expires_at: entry.expires_at,
          };
          const text = JSON.stringify({ handover, node_id: nodeId });
          return appendToInbox(links.command, inbox, text, 1);
        }),
      );
      await Promise.all(entries.map((entry) => store.ack(entry.id)));
      logger.info(
        { realm, key, consumer, owner, copies: entries.length },
        'stored copies handed over to the new owner of a durable consumer',
      );
      return entries.length;
    } catch (err) {
      logger.warn(
        { err: (err as Error).message, realm, key, consumer, owner },
        'stored copies not handed over: kept here',
      );
      return 0;
    }
  }

  /**
   * Stores one handover entry of the inbox (`text` starts with `HANDOVER_PREFIX`); resolves
   * once it is committed. Invalid entries are logged and skipped.
   */
  async receive(text: string): Promise<void> {
    let entry: z.infer<typeof HandoverEntry>;
    try {
      entry = HandoverEntry.parse(JSON.parse(text));
    } catch {
      this.deps.logger.warn({ bytes: text.length }, 'invalid handover entry ignored');
      return;
    }
    const h = entry.handover;
    const ttl = h.expires_at === null ? null : Math.max(0, (h.expires_at - Date.now()) / 1000);
    if (ttl === 0) return;
    if (await this.deps.store.get(h.id)) return; // Handed over twice: one copy per id.
    try {
      await this.deps.store.enqueue(h.realm, h.key, {
        id: h.id,
        consumer: h.consumer_id,
        payload: h.message as unknown as DeliveryEnvelope,
        producer: h.producer,
        ttl,
        attempts: h.attempts,
      });
    } catch (err) {
      this.deps.logger.error(
        { err: (err as Error).message, realm: h.realm, key: h.key, consumer: h.consumer },
        'handed-over copy not stored',
      );
      return;
    }
    this.replaySoon(h.realm, h.key, h.consumer);
  }

  /** One replay per queue for a run of handed-over copies, not one per copy. */
  private replaySoon(realm: string, key: string, consumer: string): void {
    const id = `${realm}\0${key}\0${consumer}`;
    if (this.toReplay.has(id)) return;
    this.toReplay.add(id);
    setImmediate(() => {
      this.toReplay.delete(id);
      this.deps.replay(realm, key, consumer);
    });
  }
}
