/**
 * Reliable (ACK) delivery timers: each stored copy delivered with `msgId` waits for its ACK;
 * on timeout it is retried with backoff, and after `max_attempts` it is dead-lettered.
 *
 * Source: `spec/protocol-core.md` §10.1–§10.3 (attempts, timers, formulas) and Note 9.4-A
 * (a replay cancels the copy's old timers instead of running two schedulers). The copies
 * themselves live in the message store, with their attempt count (ARCHITECTURE §4): the
 * tracker starts from the stored count, so a re-send after a reconnect, a takeover or a
 * restart carries `delivery_attempt ≥ 2`, and `max_attempts` counts deliveries across
 * connections. Every delay is bounded by `MAX_TIMER_DELAY_MS` (a longer Node timer fires at once).
 *
 * Store faults (issue 21): a copy's state in memory never runs ahead of the store. An ACK is
 * tracked until its delete commits; one that fails re-arms the copy (retried after its backoff,
 * then dead-lettered). An attempt count the store could not record is kept here and counted from
 * at the copy's next delivery (so the re-send is marked and `max_attempts` still dead-letters);
 * the next attempt's write records it. An attempt still in the broker's write buffer when its
 * socket closes never reached the consumer: it is not charged (docs/delivery-guarantees.md).
 */
import { MAX_TIMER_DELAY_MS } from '../../shared/duration';
import { consumeEvent } from '../../shared/protocol-events';
import type { BrokerSocket } from '../transport/socket-types';
import {
  inFlightKey,
  retryDelayMs,
  type AckTrackerHooks,
  type CopyState,
  type ReliableCopy,
  type Released,
} from './ack-types';
import { emitDelivery, emitEncodedDelivery } from './chunked-emit';
import { DeadlineLists, type DeadlineEntry } from './deadline-lists';
import type { SocketForward } from './socket-forward';

export { inFlightKey, retryDelayMs };
export type { AckTrackerHooks, CopyState, Reassignment, ReliableCopy, Released } from './ack-types';

/** A tracked copy; while it awaits its ACK it sits in the tracker's `DeadlineLists`. */
interface Pending extends DeadlineEntry {
  msgId: string;
  copy: ReliableCopy;
  attempt: number;
  /** Socket the last attempt went to, while its ACK is awaited; null during a retry delay. */
  socketId: string | null;
  /** Socket the last attempt went to, kept during the retry delay (group hand-over). */
  lastSocketId: string | null;
  /** Highest attempt number written to the store. */
  persisted: number;
  /** The retry delay's timer (the ACK wait is a deadline entry instead). */
  timer: NodeJS.Timeout | null;
  /** Epoch ms the retry timer fires at, while it is set (shown by `peek_queue`). */
  retryAt: number;
  /** `performance.now()` when the last attempt was sent, for the ACK latency histogram. */
  sentAt: number;
  /** The last attempt's place in its socket's `deliveriesSent` (compared with `deliveriesFlushed`). */
  seq: number;
}

/** Most attempt counts kept for copies whose count the store could not record. */
const MAX_UNRECORDED = 100_000;
export class AckTracker {
  private readonly pending = new Map<string, Pending>();
  /** ACK waits: one Node timer per `ack_timeout` length, not one per delivery. */
  private readonly deadlines = new DeadlineLists<Pending>((p) => this.timedOut(p.msgId, p));
  /** Attempts made of copies whose count the store could not record (msgId → count). */
  private readonly unrecorded = new Map<string, number>();

  /** Per-recipient filter (embedding `authorizeForward`); null when none is installed. */
  forward: SocketForward | null = null;

  constructor(private readonly hooks: AckTrackerHooks) {}

  /**
   * `rename_realm`: copies awaiting an ACK in `from` are stored under `to` now, so their
   * retries, ACKs and dead-lettering count against the renamed queues. Returns how many.
   */
  renameRealm(from: string, to: string): number {
    let n = 0;
    for (const entry of this.pending.values()) {
      if (entry.copy.realm !== from) continue;
      entry.copy.realm = to;
      n++;
    }
    return n;
  }

  /**
   * Delivers stored copy `msgId` to `socket` and starts its ACK timer. `made`: deliveries
   * already made (the stored count); `persisted`: the count the store holds (a live copy is
   * stored with 1 before its first delivery). A copy already tracked keeps counting from
   * where it was, and its old timer is cancelled. A copy whose attempts ran out is
   * dead-lettered instead of delivered.
   */
  deliver(
    socket: BrokerSocket,
    msgId: string,
    copy: ReliableCopy,
    made = 0,
    persisted = made,
  ): void {
    const previous = this.pending.get(msgId);
    if (previous) this.disarm(previous);
    if (this.unrecorded.size !== 0) made = Math.max(made, this.unrecorded.get(msgId) ?? 0);
    const attempt = Math.max(previous?.attempt ?? 0, made);
    if (attempt >= copy.retry.maxAttempts) {
      this.pending.delete(msgId);
      this.unrecorded.delete(msgId);
      this.hooks.exhausted(msgId, copy, `ack timeout after ${attempt} attempt(s)`);
      return;
    }
    const entry: Pending = {
      deadlineAt: 0,
      deadlinePrev: null,
      deadlineNext: null,
      deadlineList: null,
      msgId,
      copy,
      attempt,
      socketId: null,
      lastSocketId: null,
      persisted: Math.max(previous?.persisted ?? 0, persisted),
      timer: null,
      retryAt: 0,
      sentAt: 0,
      seq: 0,
    };
    this.pending.set(msgId, entry);
    this.attempt(msgId, entry, socket, attempt + 1);
  }

  /**
   * Ids of the copies tracked now (sent and awaiting their ACK, or waiting for a retry), per
   * stored queue: `inFlight(realm)` maps `inFlightKey(key, consumer)` to the ids. O(tracked);
   * read by the `list_queues` / `peek_queue` / `purge_queue` commands, never per message.
   */
  inFlight(realm: string): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const [msgId, p] of this.pending) {
      if (p.copy.realm !== realm) continue;
      const id = inFlightKey(p.copy.stored.key, p.copy.stored.consumer);
      let ids = out.get(id);
      if (!ids) out.set(id, (ids = new Set()));
      ids.add(msgId);
    }
    return out;
  }

  /** The copy tracked as `msgId`, if any. */
  copyOf(msgId: string): ReliableCopy | undefined {
    return this.pending.get(msgId)?.copy;
  }

  /**
   * Where tracked copy `msgId` stands (`peek_queue`): its attempt number, the epoch ms its ACK
   * wait ends (null unless awaiting an ACK) and its retry is due (null unless in a retry delay).
   * Undefined when untracked.
   */
  stateOf(msgId: string): CopyState | undefined {
    const p = this.pending.get(msgId);
    if (!p) return undefined;
    const awaiting = this.deadlines.isScheduled(p);
    return {
      attempt: p.attempt,
      ackDeadlineAt: awaiting ? Date.now() + (p.deadlineAt - performance.now()) : null,
      nextRetryAt: p.timer !== null ? p.retryAt : null,
    };
  }

  /**
   * "Release now" (`release_in_flight`, docs/management.md "Queues"): ends the ACK wait or
   * retry delay of `msgId` at once, as a timeout would (`ackTimeout` counted when an ACK was
   * awaited; the attempt stays charged), and redelivers it now to another live member of its
   * consumer group, else leaves it stored as a ready copy (`requeued`): retried to its
   * consumer after the retry delay while that one is connected, as after a timeout. A copy
   * whose attempts ran out is dead-lettered instead (§10.4). Null when `msgId` is not waiting (untracked, or
   * its ACK's delete is being committed).
   */
  releaseNow(msgId: string): Released | null {
    const p = this.pending.get(msgId);
    if (!p || !this.armed(p)) return null;
    const awaiting = this.deadlines.isScheduled(p);
    const from = p.socketId ?? p.lastSocketId;
    this.disarm(p);
    p.socketId = null;
    if (awaiting) this.hooks.ackTimeout(p.copy.realm);
    if (p.attempt >= p.copy.retry.maxAttempts) {
      this.pending.delete(msgId);
      this.unrecorded.delete(msgId);
      this.hooks.exhausted(msgId, p.copy, `released after ${p.attempt} attempt(s)`);
      return { outcome: 'dead_lettered', attempt: p.attempt };
    }
    const target = p.copy.reassign?.();
    // The member that holds it is no taker: the copy waits for the next one instead.
    if (target && target.socket.id !== from) {
      const { socket, ...member } = target;
      p.copy = { ...p.copy, ...member };
      this.attempt(msgId, p, socket, p.attempt + 1);
      return { outcome: 'redelivered', attempt: p.attempt, consumer: member.consumer };
    }
    // No other member: as after an ACK timeout, a consumer still connected gets it again after
    // its retry delay (it sat unsent until a reconnect: issue 27 trial). Offline, the stored
    // copy is ready for the consumer's next SUBSCRIBE (or a move).
    if (p.copy.currentSocket()?.connected) this.retryLater(msgId, p);
    else this.pending.delete(msgId);
    return { outcome: 'requeued', attempt: p.attempt };
  }

  /** Whether `msgId` awaits an ACK from `socketId` now (replay skips those, Note 9.4-A). */
  isAwaiting(msgId: string, socketId: string): boolean {
    const p = this.pending.get(msgId);
    return p !== undefined && p.socketId === socketId && this.armed(p);
  }

  /** The socket id whose ACK `msgId` awaits, null during a retry delay, undefined if untracked. */
  owner(msgId: string): string | null | undefined {
    return this.pending.get(msgId)?.socketId;
  }

  /**
   * An ACK for `msgId` arrived: times it and stops its ACK wait or retry, but keeps tracking the
   * copy until the delete is settled — `release` once it committed, `ackFailed` if it failed.
   * Meanwhile the copy awaits no socket and is neither retried nor handed over.
   */
  acknowledged(msgId: string): boolean {
    const p = this.pending.get(msgId);
    if (!p) return false;
    if (this.armed(p) && p.socketId !== null)
      this.hooks.acked?.((performance.now() - p.sentAt) / 1000);
    this.disarm(p);
    p.socketId = null;
    return true;
  }

  /**
   * The delete of an ACKed copy failed (the copy is still stored): unless it was delivered again
   * meanwhile, it is re-armed as if its ACK had timed out — retried after its backoff, or
   * dead-lettered when its attempts ran out.
   */
  ackFailed(msgId: string): void {
    const p = this.pending.get(msgId);
    if (p === undefined || this.armed(p)) return;
    this.retryLater(msgId, p);
  }

  /** Stops tracking `msgId` (ACK committed, or removed); returns whether it was tracked. */
  release(msgId: string): boolean {
    if (this.unrecorded.size !== 0) this.unrecorded.delete(msgId);
    const p = this.pending.get(msgId);
    if (!p) return false;
    this.disarm(p);
    return this.pending.delete(msgId);
  }

  /**
   * The store could not record attempt count `n` of `msgId`: the count is kept here, and the
   * copy's next delivery counts from it (and its write records it).
   */
  notRecorded(msgId: string, n: number): void {
    if ((this.unrecorded.get(msgId) ?? -1) >= n) return;
    if (this.unrecorded.size >= MAX_UNRECORDED) {
      // Bounded: the oldest entry goes (its copy is counted from the store again).
      for (const oldest of this.unrecorded.keys()) {
        this.unrecorded.delete(oldest);
        break;
      }
    }
    this.unrecorded.set(msgId, n);
  }

  /**
   * Forgets the deliveries awaiting a closed socket (§15 step 1): their copies stay stored
   * for replay. Group copies move to another live member at once instead (§12) — whether
   * they await an ACK or wait for a retry — within their attempt budget. `flushed`: the
   * socket's `deliveriesFlushed`; an attempt sent after it was still in the broker's write
   * buffer, never reached the consumer, and is not charged.
   */
  dropSocket(socketId: string, flushed = Infinity): void {
    for (const [msgId, p] of this.pending) {
      const awaiting = p.socketId === socketId;
      if (!awaiting && !(p.timer !== null && p.lastSocketId === socketId)) continue;
      const unsent = awaiting && p.seq > flushed;
      const target = p.copy.reassign?.();
      if (!target) {
        // In a retry delay, the retry itself finds the consumer's next socket, or none.
        if (!awaiting) continue;
        // Untracked, but a count the store could not record is kept for the next delivery.
        this.disarm(p);
        this.pending.delete(msgId);
        // The store holds the count with the unsent attempt: it goes back to the one before.
        if (unsent) {
          if (this.unrecorded.size !== 0) this.unrecorded.delete(msgId);
          this.hooks.attempted(msgId, p.attempt - 1);
        }
        continue;
      }
      this.disarm(p);
      // The attempt is made again, as the same attempt (its count is stored already).
      if (unsent) p.attempt--;
      if (p.attempt >= p.copy.retry.maxAttempts) {
        this.pending.delete(msgId);
        this.unrecorded.delete(msgId);
        this.hooks.exhausted(msgId, p.copy, `ack timeout after ${p.attempt} attempt(s)`);
        continue;
      }
      const { socket, ...member } = target;
      p.copy = { ...p.copy, ...member };
      this.attempt(msgId, p, socket, p.attempt + 1);
    }
  }

  /** Cancels every timer (broker shutdown); stored copies are untouched. */
  close(): void {
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
    this.deadlines.clear();
    this.pending.clear();
    this.unrecorded.clear();
  }

  /** Whether `p` waits for its ACK or for its retry. */
  private armed(p: Pending): boolean {
    return p.timer !== null || this.deadlines.isScheduled(p);
  }

  /** Stops `p`'s ACK wait or retry delay. */
  private disarm(p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    this.deadlines.cancel(p);
  }

  private attempt(msgId: string, p: Pending, socket: BrokerSocket, n: number): void {
    const { copy } = p;
    p.attempt = n;
    p.socketId = socket.id;
    p.lastSocketId = socket.id;
    p.seq = ++socket.data.deliveriesSent;
    if (n > p.persisted) {
      p.persisted = n;
      // This write records any count kept for the copy; if it fails, `notRecorded` keeps n.
      if (this.unrecorded.size !== 0) this.unrecorded.delete(msgId);
      this.hooks.attempted(msgId, n);
    }
    if (this.forward === null && copy.envelopeJson !== undefined) {
      emitEncodedDelivery(socket, consumeEvent(copy.key), copy.envelopeJson, msgId, n);
    } else {
      const envelope = { ...copy.envelope, msgId, msg_id: msgId, delivery_attempt: n };
      // A copy the forward filter drops is not sent: it stays unacknowledged (retried, DLQ).
      const sent = this.forward === null ? envelope : this.forward(copy.realm, socket, envelope);
      if (sent === envelope) {
        emitDelivery(socket, consumeEvent(copy.key), envelope, undefined, copy.envelope);
      } else if (sent !== null) {
        emitDelivery(socket, consumeEvent(copy.key), sent);
      }
    }
    p.sentAt = performance.now();
    this.hooks.delivered(copy.realm, copy.envelope.event, copy.stored);
    this.deadlines.schedule(p, Math.min(copy.ackTimeoutMs, MAX_TIMER_DELAY_MS));
  }

  /** §10.2: drop the pending record; dead-letter after the last attempt, else retry. */
  private timedOut(msgId: string, p: Pending): void {
    p.timer = null;
    p.socketId = null;
    this.hooks.ackTimeout(p.copy.realm);
    this.retryLater(msgId, p);
  }

  /** Dead-letters `p` after its last attempt, else retries it after its backoff. */
  private retryLater(msgId: string, p: Pending): void {
    const { copy } = p;
    if (p.attempt >= copy.retry.maxAttempts) {
      this.pending.delete(msgId);
      this.unrecorded.delete(msgId);
      this.hooks.exhausted(msgId, copy, `ack timeout after ${p.attempt} attempt(s)`);
      return;
    }
    const delay = retryDelayMs(copy.retry, p.attempt);
    p.retryAt = Date.now() + delay;
    p.timer = setTimeout(() => {
      p.timer = null;
      if (this.pending.get(msgId) !== p) return;
      const socket = copy.currentSocket();
      // No live socket: the copy stays stored for the consumer's next SUBSCRIBE (§10.2).
      if (socket?.connected) this.attempt(msgId, p, socket, p.attempt + 1);
      else this.pending.delete(msgId);
    }, delay);
    p.timer.unref();
  }
}
