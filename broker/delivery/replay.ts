/**
 * Replay of stored copies when a consumer subscribes (`spec/protocol-core.md` §9.4).
 *
 * Every `SUBSCRIBE` reads the unexpired copies of `(realm, key, consumer_id)`, oldest first,
 * and for each, while the consumer is live:
 * - ACK subscription: reliable delivery (§10); the copy stays stored until ACKed or
 *   dead-lettered. Copies already awaiting an ACK from this socket are skipped, and a copy's
 *   old retry timer is cancelled when it is re-delivered (Note 9.4-A);
 * - otherwise (legacy mode): `CONSUME-<key>` with the stored envelope, no `msgId`, and the
 *   copy is deleted at once (at most once).
 * Live messages arriving meanwhile may interleave with the replay (§9.4, kept).
 */
import { consumeEvent } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import type { RealmRegistry } from '../routing/realm-registry';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { MessageStore } from '../storage/message-store';
import type { AckTracker } from './ack-tracker';
import { liveSocket, reliableCopy, type Delivery } from './delivery';

export class Replayer {
  constructor(
    private readonly store: MessageStore,
    private readonly acks: AckTracker,
    private readonly delivery: Delivery,
    private readonly logger: Logger,
  ) {}

  /** Replays the stored copies of `record`'s queue; resolves with the number sent. */
  async replay(realm: RealmRegistry, record: SubscriptionRecord): Promise<number> {
    let entries;
    try {
      entries = await this.store.dequeue(realm.name, record.key, record.consumerId);
    } catch (err) {
      this.logger.error({ err, realm: realm.name, key: record.key }, 'replay read failed');
      return 0;
    }
    let sent = 0;
    for (const entry of entries) {
      const socket = liveSocket(realm, record.consumer);
      // Gone, or over its write-buffer cap: the rest waits in the store for the next replay.
      if (!socket || !this.delivery.writable(socket)) break;
      if (record.ackRequired) {
        if (this.acks.isAwaiting(entry.id, socket.id)) continue;
        this.acks.deliver(socket, entry.id, reliableCopy(realm, record, entry.message));
      } else {
        this.delivery.emit(realm.name, socket, consumeEvent(record.key), entry.message);
        this.store.ack(entry.id).catch((err: unknown) => {
          this.logger.error({ err, id: entry.id }, 'replayed copy not deleted');
        });
      }
      sent++;
    }
    return sent;
  }
}
