/**
 * Replay of stored copies when a consumer subscribes (`spec/protocol-core.md` §9.4).
 *
 * Every `SUBSCRIBE` reads the unexpired copies of `(realm, key, consumer_id)`, oldest first,
 * and for each, while the consumer keeps the same live socket:
 * - ACK subscription: reliable delivery (§10), continuing from the stored attempt count; the
 *   copy stays stored until ACKed or dead-lettered. Copies already awaiting an ACK from this
 *   socket are skipped, and a copy's old retry timer is cancelled when it is re-delivered
 *   (Note 9.4-A);
 * - otherwise (legacy mode): `CONSUME-<key>` with the stored envelope, no `msgId`, and the
 *   copy is deleted at once (at most once).
 *
 * Switchboard replaces §9.4's "live may interleave" with publish order (ARCHITECTURE §4):
 * while the replay runs, new copies for the subscription are stored behind the backlog; the
 * replay reads again until nothing newer was stored, then the queue turns live for this
 * socket. A copy still in the group-commit batch that the replay reads is taken from the
 * live path's claim, so it is delivered once (one owner per copy).
 */
import { consumeEvent } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import type { RealmRegistry } from '../routing/realm-registry';
import type { SubscriptionRecord } from '../routing/registry-types';
import type { MessageStore, StoredEntry } from '../storage/message-store';
import type { BrokerSocket } from '../transport/socket-types';
import type { AckTracker } from './ack-tracker';
import type { Delivery } from './delivery';
import { liveSocket, reliableCopy } from './reliable-copy';
import type { QueueLedger } from './queue-ledger';
import type { QueueState } from './queue-state';

export class Replayer {
  constructor(
    private readonly store: MessageStore,
    private readonly acks: AckTracker,
    private readonly delivery: Delivery,
    private readonly ledger: QueueLedger,
    private readonly logger: Logger,
  ) {}

  /** Replays the stored copies of `record`'s queue; resolves with the number sent. */
  async replay(realm: RealmRegistry, record: SubscriptionRecord): Promise<number> {
    const socket = liveSocket(realm, record.consumer);
    if (!socket) return 0;
    const q = this.ledger.queueOf(realm.name, record);
    const gen = ++q.replayGen;
    q.liveSocket = null;
    const seen = new Set<string>();
    // A group's replayed copy can move to another member too, as a live one (§12): a release
    // or this member's disconnect hands it over.
    const group =
      record.group === null
        ? undefined
        : [...(realm.subscriptions.get(record.key)?.values() ?? [])].filter(
            (r) => r.group === record.group,
          );
    let sent = 0;
    for (;;) {
      q.parked = 0;
      let entries: StoredEntry[];
      try {
        entries = await this.store.dequeue(realm.name, record.key, record.consumerId);
      } catch (err) {
        this.logger.error({ err, realm: realm.name, key: record.key }, 'replay read failed');
        break;
      }
      if (q.replayGen !== gen) return sent; // a newer replay of this queue took over
      for (const entry of entries) {
        if (seen.has(entry.id)) continue;
        seen.add(entry.id);
        // The consumer left, was replaced, or is over its write-buffer cap (back-pressure): its
        // next SUBSCRIBE replays the rest.
        if (liveSocket(realm, record.consumer) !== socket || !this.delivery.writable(socket)) {
          return sent;
        }
        if (this.send(realm, record, q, socket, entry, group)) sent++;
      }
      if (q.parked === 0) break;
    }
    if (q.replayGen === gen && liveSocket(realm, record.consumer) === socket) {
      q.liveSocket = socket.id;
    }
    return sent;
  }

  private send(
    realm: RealmRegistry,
    record: SubscriptionRecord,
    q: QueueState,
    socket: BrokerSocket,
    entry: StoredEntry,
    group: readonly SubscriptionRecord[] | undefined,
  ): boolean {
    // Taken from a live enqueue still in flight: it was stored as attempt 1, never sent.
    const claimed = this.ledger.claims.delete(entry.id);
    if (record.ackRequired) {
      if (this.acks.isAwaiting(entry.id, socket.id)) return false;
      const made = claimed ? entry.attempts - 1 : entry.attempts;
      const copy = reliableCopy(realm, record, entry.message, group);
      this.acks.deliver(socket, entry.id, copy, made, entry.attempts);
      this.delivery.replayedSince(entry.created_at);
      return true;
    }
    this.delivery.emit(realm.name, socket, consumeEvent(record.key), entry.message);
    this.ledger.delivered(q.realm, q.key, q.consumer);
    this.delivery.replayedSince(entry.created_at);
    this.ledger.ack(entry.id, q.realm, q.key, q.consumer).catch((err: unknown) => {
      this.logger.error({ err, id: entry.id }, 'replayed copy not deleted');
    });
    return true;
  }
}
