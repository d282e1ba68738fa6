/**
 * Delivery of one routed copy to one subscription (`spec/protocol-core.md` §7 step 6, §9.1):
 * - live consumer, no ACK: `CONSUME-<key>` at once (at most once, in order);
 * - live consumer with ACK (Note 7-A: ACK alone is enough): the copy is committed to the
 *   store, then delivered with `msgId` and tracked until ACKed, retried or dead-lettered;
 * - offline consumer: committed to the store for a durable subscription or a guaranteed
 *   message (replayed on its next `SUBSCRIBE`), dropped otherwise.
 * If a reliable copy cannot be stored (store error, queue cap) it is delivered plain, without
 * `msgId`, rather than not at all (§9.1 recommendation) — and the publisher confirm says so.
 * Per queue, the outcomes of those writes are acted on in publish order (`hold`/`settled`),
 * so a fast failure never overtakes an earlier copy whose write is still in flight.
 *
 * Per durable queue, publish order (ARCHITECTURE §4): a copy goes out live only when its queue
 * is live for the consumer's socket (see `QueueLedger`); otherwise it is stored behind the
 * backlog and the replay delivers it.
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import { consumeEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import { OPEN_GATE, type SendGate } from '../limits/back-pressure';
import type { Logger } from '../logging/logger';
import { PerKeyThrottle } from '../logging/per-key-throttle';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { ProducedMessage } from '../routing/produced-message';
import type { RealmRegistry } from '../routing/realm-registry';
import type { SubscriptionRecord } from '../routing/registry-types';
import { newMessageId, type MessageStore } from '../storage/message-store';
import type { BrokerSocket } from '../transport/socket-types';
import type { AckTracker } from './ack-tracker';
import { liveSocket, reliableCopy } from './reliable-copy';
import { emitDelivery, emitSingleDelivery, encodableBase, needsChunking } from './chunked-emit';
import type { QueueLedger } from './queue-ledger';
import type { QueueState, Refusal } from './queue-state';
import type { SocketForward } from './socket-forward';
import type { LocalBroadcast, OfflineStoredHook, StoreOutcome } from './delivery-hooks';

export type { StoreOutcome } from './delivery-hooks';

/** Refusals are logged at most once per this many ms per realm (they come in floods). */
const REFUSAL_LOG_MS = 1_000;

export class Delivery {
  /** Queue-cap refusals and store write failures: one log line a second per realm each. */
  private readonly refusalLog = new PerKeyThrottle(REFUSAL_LOG_MS);
  private readonly storeFailureLog = new PerKeyThrottle(REFUSAL_LOG_MS);
  /** Per-recipient filter (embedding `authorizeForward`); null when none is installed. */
  forward: SocketForward | null = null;
  /** Push wake (§6.5): told of each offline copy's write (set by the composition root). */
  offlineStored: OfflineStoredHook | null = null;
  /** The last envelope serialised for a live reliable copy, and its text (fan-out reuses it). */
  private lastEnvelope: DeliveryEnvelope | null = null;
  private lastJson: string | undefined;

  constructor(
    private readonly metrics: BrokerMetrics,
    private readonly acks: AckTracker,
    private readonly store: MessageStore,
    readonly ledger: QueueLedger,
    private readonly logger: Logger,
    private readonly broadcast: LocalBroadcast,
    /** Back-pressure: plain copies to a socket over its write-buffer cap are dropped. */
    private readonly gate: SendGate = OPEN_GATE,
  ) {}

  /** Whether `socket` may be sent copies that would otherwise stay in the store. */
  writable(socket: BrokerSocket): boolean {
    return this.gate.writable(socket);
  }

  /**
   * Whether a plain (no-ACK) copy for `record` may go to `socket` now: always for a
   * non-durable subscription; for a durable one only once its backlog has drained.
   */
  mayDeliverPlain(realm: RealmRegistry, record: SubscriptionRecord, socket: BrokerSocket) {
    return !record.durable || this.ledger.queueOf(realm.name, record).liveSocket === socket.id;
  }

  /**
   * Plain live deliveries of one message on one key to several sockets (a fan-out): encoded
   * once for all of them unless the envelope needs chunking. Counted per socket; the
   * publish→deliver latency since `receivedAt` (`performance.now()` ms) is observed once.
   */
  emitToSockets(
    realm: string,
    sockets: readonly BrokerSocket[],
    eventName: `CONSUME-${string}`,
    envelope: DeliveryEnvelope,
    receivedAt?: number,
  ): void {
    for (let i = 0; i < sockets.length; i++) {
      if (this.gate.admit(realm, sockets[i]!)) continue;
      // Rare: one of them is over its cap. Those before `i` passed already.
      sockets = sockets.filter((s, j) => j < i || (j > i && this.gate.admit(realm, s)));
      if (sockets.length === 0) return;
      break;
    }
    if (this.forward !== null) {
      // Per recipient: the filter may drop or rewrite each copy, so no shared encoding.
      let sent = 0;
      for (const socket of sockets) {
        const copy = this.forward(realm, socket, envelope);
        if (copy === null) continue;
        emitDelivery(socket, eventName, copy);
        sent++;
      }
      if (sent > 0) this.metrics.messageDelivered(realm, envelope.event, sent);
      if (receivedAt !== undefined) this.metrics.publishDelivered(performance.now() - receivedAt);
      return;
    }
    const ids = sockets.length === 1 ? null : sockets.map((s) => s.id);
    // A socket listed twice (two consumer names on one connection) gets two copies, as one
    // per subscription record is the protocol's rule; a broadcast would send it one.
    if (ids === null) {
      emitSingleDelivery(sockets[0]!, eventName, envelope);
    } else if (new Set(ids).size !== ids.length || needsChunking(envelope)) {
      for (const socket of sockets) emitDelivery(socket, eventName, envelope);
    } else {
      this.broadcast(ids, eventName, envelope);
    }
    this.metrics.messageDelivered(realm, envelope.event, sockets.length);
    if (receivedAt !== undefined) this.metrics.publishDelivered(performance.now() - receivedAt);
  }

  /**
   * Delivers `envelope` to the consumer owning `record` when the copy involves the store: a
   * live consumer with ACK, or an offline one (stored for a durable subscription or a
   * guaranteed message, dropped otherwise). Plain live copies do not come here: the router
   * gathers them per key for `emitToSockets`. Returns the outcome of the durable write when
   * one was made (for publisher confirms), else null. `group` lists the record's group
   * members, so an unacknowledged copy can move when this member leaves.
   */
  toSubscription(
    realm: RealmRegistry,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    msg: ProducedMessage,
    group?: readonly SubscriptionRecord[],
  ): Promise<StoreOutcome> | null {
    const socket = liveSocket(realm, record.consumer);
    if (!socket && !record.durable && !msg.guaranteed) return null;
    const q = this.ledger.queueOf(realm.name, record);
    if (!socket || q.liveSocket !== socket.id || !record.ackRequired) {
      // Stored behind the backlog: the replay delivers it (or the consumer's next SUBSCRIBE).
      if (!socket) {
        const stored = this.enqueue(q, record, envelope, msg, undefined, 0);
        this.offlineStored?.(realm.name, record.consumer, stored);
        return stored;
      }
      // A live consumer may get it plain if the write fails: in publish order (below).
      const seq = q.outSeq++;
      return this.enqueue(q, record, envelope, msg, undefined, 0).then((outcome) => {
        if (seq !== q.outNext) {
          this.hold(q, seq, () => this.settleParked(realm, record, envelope, outcome));
        } else {
          try {
            this.settleParked(realm, record, envelope, outcome);
          } finally {
            this.settled(q);
          }
        }
        return outcome;
      });
    }
    // Delivered live once committed, as attempt 1 (stored with that count: no second write).
    // Serialised once: the same text is stored and sent (`emitEncodedDelivery`).
    const json = this.jsonOf(envelope);
    const id = newMessageId();
    this.ledger.claims.add(id);
    const seq = q.outSeq++;
    return this.enqueue(q, record, envelope, msg, id, 1, json).then((outcome) => {
      if (seq !== q.outNext) {
        const act = () =>
          this.settleLive(realm, record, envelope, msg, group, json, q, id, outcome);
        this.hold(q, seq, act);
      } else {
        try {
          this.settleLive(realm, record, envelope, msg, group, json, q, id, outcome);
        } finally {
          this.settled(q);
        }
      }
      return outcome;
    });
  }

  /**
   * Publish order of fallbacks (issue 21 item 6): per queue, the outcome of a copy's write is
   * acted on (delivered with `msgId`, or plain as a fallback) only once every earlier copy's
   * write for that queue has settled and been acted on. Writes that settle in order (SQLite's
   * group commit, Redis replies on one connection, a healthy store) take the fast path: no
   * allocation. A write that settles before an earlier one (a Redis write failing fast while
   * the one before it waits for a reconnect to fail) waits here for it.
   */
  private hold(q: QueueState, seq: number, act: () => void): void {
    (q.outHeld ??= new Map()).set(seq, act);
  }

  /** The copy `q.outNext` was acted on: the next ones that already settled follow, in order. */
  private settled(q: QueueState): void {
    q.outNext++;
    const held = q.outHeld;
    if (held === null) return;
    for (let act = held.get(q.outNext); act !== undefined; act = held.get(q.outNext)) {
      held.delete(q.outNext);
      q.outNext++;
      try {
        act();
      } catch (err) {
        this.logger.error(
          { err, realm: q.realm, key: q.key },
          'delivery after a held write failed',
        );
      }
    }
    if (held.size === 0) q.outHeld = null;
  }

  /** A parked copy's write settled: on failure it goes plain to the consumer if still live. */
  private settleParked(
    realm: RealmRegistry,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    outcome: StoreOutcome,
  ): void {
    if (outcome.ok) return;
    const now = liveSocket(realm, record.consumer);
    if (now) this.emit(realm.name, now, consumeEvent(record.key), envelope);
  }

  /** A live reliable copy's write settled: delivered with `msgId`, or plain if not stored. */
  private settleLive(
    realm: RealmRegistry,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    msg: ProducedMessage,
    group: readonly SubscriptionRecord[] | undefined,
    json: string | undefined,
    q: QueueState,
    id: string,
    outcome: StoreOutcome,
  ): void {
    // A replay that read the copy first has delivered it (one owner per copy).
    if (!this.ledger.claims.has(id)) return;
    const now = liveSocket(realm, record.consumer);
    if (!outcome.ok) {
      this.ledger.claims.delete(id);
      if (now) this.emit(realm.name, now, consumeEvent(record.key), envelope);
    } else if (now && q.liveSocket === now.id && this.gate.writable(now)) {
      this.ledger.claims.delete(id);
      this.acks.deliver(now, id, reliableCopy(realm, record, envelope, group, json), 0, 1);
      if (msg.receivedAt !== undefined)
        this.metrics.publishDelivered(performance.now() - msg.receivedAt);
    } else {
      // Not delivered after all (consumer gone, replaying, or over its write-buffer cap): it
      // waits in the store for the replay, never sent. The claim
      // stays until the reset count is committed, so a replay that reads the copy meanwhile
      // (still stored as attempt 1) knows that attempt was never made.
      const release = () => this.ledger.claims.delete(id);
      this.store.setAttempts(id, 0).then(release, (err: unknown) => {
        release();
        this.logger.error({ err, id }, 'attempt count not reset');
      });
    }
  }

  /** A stored copy created at `createdAt` (ISO) was sent: publish→deliver includes its wait. */
  replayedSince(createdAt: string): void {
    const at = Date.parse(createdAt);
    if (!Number.isNaN(at)) this.metrics.publishDelivered(Math.max(0, Date.now() - at));
  }

  /** Emits one delivery on `eventName` and counts it. */
  emit(
    realm: string,
    socket: BrokerSocket,
    eventName: `CONSUME-${string}`,
    envelope: DeliveryEnvelope,
  ) {
    if (!this.gate.admit(realm, socket)) return;
    const copy = this.forward === null ? envelope : this.forward(realm, socket, envelope);
    if (copy === null) return;
    emitDelivery(socket, eventName, copy);
    this.metrics.messageDelivered(realm, envelope.event);
  }

  /**
   * Emits one envelope on several event names to one socket, counted as one delivery.
   * `forwarded`: the forward filter was already applied to `envelope` for this socket.
   */
  emitMany(
    realm: string,
    socket: BrokerSocket,
    eventNames: readonly `CONSUME-${string}`[],
    envelope: DeliveryEnvelope,
    forwarded = false,
  ): void {
    if (!this.gate.admit(realm, socket)) return;
    const copy =
      forwarded || this.forward === null ? envelope : this.forward(realm, socket, envelope);
    if (copy === null) return;
    for (const name of eventNames) emitDelivery(socket, name, copy);
    this.metrics.messageDelivered(realm, envelope.event);
  }

  /** `encodableBase(envelope)`, computed once per envelope object in a row. */
  private jsonOf(envelope: DeliveryEnvelope): string | undefined {
    if (this.lastEnvelope !== envelope) {
      this.lastEnvelope = envelope;
      this.lastJson = encodableBase(envelope);
    }
    return this.lastJson;
  }

  /** Reserves a place in `q` and stores the copy; never rejects (see `StoreOutcome`). */
  private enqueue(
    q: QueueState,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    msg: ProducedMessage,
    id: string | undefined,
    attempts: number,
    payloadJson?: string,
  ): Promise<StoreOutcome> {
    const args = [q, record, envelope, msg, id, attempts, payloadJson] as const;
    // Before the depths are seeded, every enqueue waits, in order, then reserves.
    if (!this.ledger.seeded) return this.ledger.ready.then(() => this.enqueueNow(...args));
    return this.enqueueNow(...args);
  }

  /** `enqueue` once the ledger is seeded (a plain promise chain: this runs per message). */
  private enqueueNow(
    q: QueueState,
    record: SubscriptionRecord,
    envelope: DeliveryEnvelope,
    msg: ProducedMessage,
    id: string | undefined,
    attempts: number,
    payloadJson: string | undefined,
  ): Promise<StoreOutcome> {
    const refusal = this.ledger.reserve(q);
    if (refusal !== null) return Promise.resolve(this.refused(q, refusal));
    let written: Promise<string>;
    try {
      written = this.store.enqueue(q.realm, record.key, {
        id,
        consumer: record.consumerId,
        payload: envelope,
        payloadJson,
        producer: msg.from,
        ttl: msg.ttl,
        attempts,
      });
    } catch (err) {
      return Promise.resolve(this.notStored(q, record, err));
    }
    return written.then(
      (msgId): StoreOutcome => {
        this.ledger.committed(q);
        this.metrics.messageQueued(q.realm);
        return { ok: true, msgId };
      },
      (err: unknown) => this.notStored(q, record, err),
    );
  }

  /** A write that failed: its reserved place is freed, the failure logged and returned. */
  private notStored(q: QueueState, record: SubscriptionRecord, err: unknown): StoreOutcome {
    this.ledger.failed(q);
    this.metrics.enqueueFailed(q.realm);
    const error =
      err instanceof SwitchboardError
        ? err.toInfo()
        : { code: 'SWB_ERR_STORAGE' as const, message: (err as Error).message };
    // At most one line a second per realm: a store outage or a full disk fails every copy.
    const suppressed = this.storeFailureLog.take(q.realm);
    if (suppressed !== null) {
      this.logger.error(
        { realm: q.realm, key: record.key, consumer: record.consumerId, error, suppressed },
        'durable copy not stored',
      );
    }
    return { ok: false, error };
  }

  /** A copy refused by a queue cap: counted, logged at most once a second per realm. */
  private refused(q: QueueState, refusal: Refusal): StoreOutcome {
    this.metrics.queueRefused(q.realm, refusal);
    const message =
      refusal === 'realm'
        ? `Durable queue cap of realm ${q.realm} reached`
        : `Durable queue cap of consumer ${q.consumer} reached`;
    const suppressed = this.refusalLog.take(q.realm);
    if (suppressed !== null) {
      this.logger.warn(
        { realm: q.realm, key: q.key, consumer: q.consumer, cap: refusal, suppressed },
        'durable copy refused: queue cap reached',
      );
    }
    return { ok: false, error: new SwitchboardError('SWB_ERR_QUEUE_FULL', message).toInfo() };
  }
}
