/**
 * Reliable (ACK) delivery: `msgId` in the envelope, an ACK deadline, retries with backoff and
 * a move to the dead-letter queue when attempts run out.
 *
 * Source: `spec/protocol-core.md` §10.1–§10.4 (attempts, timers, formulas, ACK replies) and
 * Note 7-A (an ACK subscription without `durable` is delivered reliably instead of crashing).
 * This tracker keeps copies in memory; durable storage behind it is the storage issue's.
 */
import { randomBytes } from 'node:crypto';
import { consumeEvent, type AckReply, type DeliveryEnvelope } from '../../shared/protocol-events';
import type { RetryPolicy } from '../routing/registry-types';
import type { BrokerSocket } from '../transport/socket-types';
import { emitDelivery } from './chunked-emit';

/** `msg-<base36 ms>-<12 hex>` (§16.2). */
export function newMsgId(): string {
  return `msg-${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
}

/** Delay before retrying after attempt `n` timed out (§10.3). */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return policy.backoff === 'exponential' ? policy.delayMs * 2 ** (attempt - 1) : policy.delayMs;
}

/** What the tracker needs to deliver one copy and to retry it later. */
export interface ReliableCopy {
  realm: string;
  key: string;
  consumer: string;
  consumerId: string;
  producer: string;
  envelope: DeliveryEnvelope;
  ackTimeoutMs: number;
  retry: RetryPolicy;
  /** The consumer's current live socket, or null (looked up at each retry). */
  currentSocket: () => BrokerSocket | null;
  /**
   * For a consumer-group copy: another live member to take it over when this member's
   * socket closes with the copy unacknowledged (§12: nothing another member can take is lost).
   */
  reassign?: () => Reassignment | null;
}

/** The member a group copy moves to. */
export interface Reassignment {
  socket: BrokerSocket;
  key: string;
  consumer: string;
  consumerId: string;
  ackTimeoutMs: number;
  retry: RetryPolicy;
  currentSocket: () => BrokerSocket | null;
}

/** A dead-lettered copy (§10.5 shape). */
export interface DeadLetter {
  id: string;
  realm: string;
  event: string;
  consumer: string;
  message: DeliveryEnvelope;
  producer: string;
  created_at: string;
  expires_at: number | null;
  reason: string;
  dead_lettered_at: string;
}

interface Pending {
  copy: ReliableCopy;
  createdAt: string;
  attempt: number;
  socketId: string | null;
  timer: NodeJS.Timeout | null;
}

export interface AckTrackerHooks {
  delivered(realm: string, event: string): void;
  ackTimeout(realm: string): void;
  deadLettered(entry: DeadLetter): void;
}

export class AckTracker {
  private readonly copies = new Map<string, Pending>();

  constructor(private readonly hooks: AckTrackerHooks) {}

  /** Stores `copy` and delivers attempt 1 to `socket`; returns its `msgId`. */
  deliver(socket: BrokerSocket, copy: ReliableCopy): string {
    const msgId = newMsgId();
    const pending: Pending = {
      copy,
      createdAt: new Date().toISOString(),
      attempt: 0,
      socketId: null,
      timer: null,
    };
    this.copies.set(msgId, pending);
    this.attempt(msgId, pending, socket, 1);
    return msgId;
  }

  /** Handles `ACK {msgId}` from `socket` (§3.6, Note 10.4-A). */
  ack(socket: BrokerSocket, msgId: string, consumerIds: ReadonlySet<string>): AckReply {
    const pending = this.copies.get(msgId);
    if (!pending) return { ok: false, code: 404, message: 'Pending ACK not found' };
    const owns =
      pending.socketId === socket.id ||
      (pending.socketId === null && consumerIds.has(pending.copy.consumerId));
    if (!owns) return { ok: false, code: 403, message: 'ACK does not belong to this socket' };
    if (pending.timer) clearTimeout(pending.timer);
    this.copies.delete(msgId);
    return { ok: true, msgId };
  }

  /**
   * Drops the pending deliveries of a closed socket (§15 step 1). Group copies move to another
   * live member at once; the others stay for redelivery to the same consumer.
   */
  dropSocket(socketId: string): void {
    for (const [msgId, pending] of this.copies) {
      if (pending.socketId !== socketId) continue;
      if (pending.timer) clearTimeout(pending.timer);
      pending.timer = null;
      pending.socketId = null;
      const target = pending.copy.reassign?.();
      if (!target) continue;
      const { socket, ...member } = target;
      pending.copy = { ...pending.copy, ...member };
      this.attempt(msgId, pending, socket, pending.attempt + 1);
    }
  }

  /** Number of unacknowledged copies held. */
  get size(): number {
    return this.copies.size;
  }

  /** Cancels every timer (broker shutdown). */
  close(): void {
    for (const pending of this.copies.values()) if (pending.timer) clearTimeout(pending.timer);
    this.copies.clear();
  }

  private attempt(msgId: string, pending: Pending, socket: BrokerSocket, n: number): void {
    const { copy } = pending;
    pending.attempt = n;
    pending.socketId = socket.id;
    const envelope = { ...copy.envelope, msgId, msg_id: msgId, delivery_attempt: n };
    emitDelivery(socket, consumeEvent(copy.key), envelope);
    this.hooks.delivered(copy.realm, copy.envelope.event);
    pending.timer = setTimeout(() => this.timedOut(msgId, pending), copy.ackTimeoutMs);
    pending.timer.unref();
  }

  private timedOut(msgId: string, pending: Pending): void {
    const { copy } = pending;
    pending.timer = null;
    pending.socketId = null;
    this.hooks.ackTimeout(copy.realm);
    if (pending.attempt >= copy.retry.maxAttempts) {
      this.copies.delete(msgId);
      this.hooks.deadLettered({
        id: msgId,
        realm: copy.realm,
        event: copy.key,
        consumer: copy.consumerId,
        message: copy.envelope,
        producer: copy.producer,
        created_at: pending.createdAt,
        expires_at: null,
        reason: `ack timeout after ${pending.attempt} attempt(s)`,
        dead_lettered_at: new Date().toISOString(),
      });
      return;
    }
    pending.timer = setTimeout(() => {
      pending.timer = null;
      const socket = copy.currentSocket();
      // No live socket: the copy waits for the consumer's next SUBSCRIBE (§10.2 step 3).
      if (socket?.connected && this.copies.get(msgId) === pending) {
        this.attempt(msgId, pending, socket, pending.attempt + 1);
      }
    }, retryDelayMs(copy.retry, pending.attempt));
    pending.timer.unref();
  }
}
