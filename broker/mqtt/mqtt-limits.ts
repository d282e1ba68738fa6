/**
 * The `limits` block applied to MQTT clients (issue 14; `spec/protocol-admin.md` §11.3):
 *   - connection limits (`max_connections_per_ip`, `connections_per_minute_per_ip`,
 *     `max_connections_per_realm`) count MQTT and socket.io connections together; checked once
 *     the client's realm is known (CONNECT). A refused client gets CONNACK 3 "server
 *     unavailable" (MQTT 3.1.1 has no "quota exceeded");
 *   - publish rates (`messages_per_second`/`message_burst`, `bytes_per_second`/`bytes_burst`,
 *     per realm overrides) per MQTT client. MQTT 3.1.1 has no negative PUBACK, so instead of
 *     dropping (silent loss at QoS 1) an over-rate client is throttled: its publish is held until
 *     the bucket allows it, and aedes reads nothing more from that client meanwhile (TCP back
 *     pressure). Each held publish counts one breach in `tyo_mq_rate_limited_total{reason}`.
 *     The buckets are the client's, shared with its other MQTT and socket.io connections (keyed
 *     by its credential, else realm and IP; `limits/shared-buckets.ts`): reconnecting does not
 *     refill them.
 * The client IP of MQTT over WebSocket follows `trust_proxy` like the other HTTP requests.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Client } from 'aedes';
import { LimitsService, type Refusal } from '../limits/limits-service';
import type { ClientBuckets } from '../limits/shared-buckets';
import { TokenBucket } from '../limits/token-bucket';

/**
 * The client's IP: the TCP peer, or for MQTT over WebSocket the upgrade request's client IP
 * (`X-Forwarded-For` from a trusted proxy, with `limits`).
 */
export function mqttClientIp(client: Client, limits?: LimitsService): string {
  const conn = client.conn as Partial<Socket>;
  const req = (client as { req?: IncomingMessage }).req;
  if (conn.remoteAddress) return conn.remoteAddress;
  if (req?.socket) return limits ? limits.requestIp(req) : (req.socket.remoteAddress ?? 'unknown');
  return 'unknown';
}

interface HeldPublish {
  realm: string;
  bytes: number;
  proceed: () => void;
}

export class MqttLimits {
  private readonly budgets = new WeakMap<Client, ClientBuckets>();
  /** Publishes held by the budget, per connection, oldest first (absent: none held). */
  private readonly held = new WeakMap<
    Client,
    { reason: 'messages_per_second' | 'bytes_per_second'; items: HeldPublish[] }
  >();

  constructor(
    private readonly limits: LimitsService,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts `client` (in `realm`) against the connection limits until its connection closes,
   * and gives it the publish buckets of `credential` (null ⇒ realm and IP) meanwhile.
   * @returns null when admitted, else the refusal.
   */
  admit(client: Client, realm: string, credential: string | null = null): Refusal | null {
    const ip = mqttClientIp(client, this.limits);
    const refusal = this.limits.admitOtherConnection(ip, realm);
    if (refusal) return refusal;
    const buckets = this.limits.acquireClient(LimitsService.clientKey(realm, credential, ip));
    this.budgets.set(client, buckets);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.limits.releaseOtherConnection(ip, realm);
      this.limits.releaseClient(buckets);
    };
    client.conn.once('close', release);
    if (client.conn.destroyed) release();
    return null;
  }

  /**
   * Calls `proceed` once `client`'s publish budget in `realm` allows a message of `bytes`
   * (at once when limits are off or the budget allows it).
   */
  throttle(client: Client, realm: string, bytes: number, proceed: () => void): void {
    const config = this.limits.config;
    if (!config.enabled) {
      proceed();
      return;
    }
    let budget = this.budgets.get(client);
    if (!budget) {
      // Not admitted through `admit` (no connection limits were wired): a bucket of its own.
      budget = { key: '', messages: null, bytes: null, refs: 1, idleSince: 0 };
      this.budgets.set(client, budget);
    }
    // Publish order per connection: a publish arriving while earlier ones are held waits
    // behind them, even if the bucket has refilled by then (aedes may read on meanwhile).
    const queue = this.held.get(client);
    if (queue) {
      // Held too: one breach, of the reason the queue is waiting for.
      this.limits.recordBreach(queue.reason);
      queue.items.push({ realm, bytes, proceed });
      return;
    }
    const wait = this.waitMs(budget, realm, bytes);
    if (wait === 0) {
      proceed();
      return;
    }
    this.limits.recordBreach(wait.reason);
    this.held.set(client, { reason: wait.reason, items: [{ realm, bytes, proceed }] });
    setTimeout(() => this.drain(client, budget), wait.ms).unref();
  }

  /** Releases the held publishes of `client` in order, as its budget allows. */
  private drain(client: Client, budget: ClientBuckets): void {
    const queue = this.held.get(client);
    if (!queue) return;
    if (client.conn.destroyed) {
      this.held.delete(client);
      return;
    }
    while (queue.items.length > 0) {
      const head = queue.items[0]!;
      const wait = this.waitMs(budget, head.realm, head.bytes);
      if (wait !== 0) {
        queue.reason = wait.reason;
        setTimeout(() => this.drain(client, budget), wait.ms).unref();
        return;
      }
      queue.items.shift();
      head.proceed();
    }
    this.held.delete(client);
  }

  /** 0 when both buckets gave their tokens, else how long to wait and why. */
  private waitMs(
    budget: ClientBuckets,
    realm: string,
    bytes: number,
  ): 0 | { ms: number; reason: 'messages_per_second' | 'bytes_per_second' } {
    const config = this.limits.config;
    const now = this.now();
    const msg = config.bucket('messages_per_second', 'message_burst', 3, realm);
    const size = config.bucket('bytes_per_second', 'bytes_burst', 2, realm);
    if (msg) {
      budget.messages ??= new TokenBucket(msg.burst, now);
      if (!budget.messages.take(1, msg.rate, msg.burst, now).ok) {
        return { ms: Math.max(10, Math.ceil(1000 / msg.rate)), reason: 'messages_per_second' };
      }
    }
    if (size) {
      // A message larger than the burst could never pass: it costs a full bucket instead.
      const cost = Math.min(Math.max(1, bytes), size.burst);
      budget.bytes ??= new TokenBucket(size.burst, now);
      if (!budget.bytes.take(cost, size.rate, size.burst, now).ok) {
        // Refund: the message is held, not sent, so it must not spend a message token.
        if (msg && budget.messages) budget.messages.take(-1, msg.rate, msg.burst, now);
        return {
          ms: Math.max(10, Math.ceil((cost * 1000) / size.rate)),
          reason: 'bytes_per_second',
        };
      }
    }
    return 0;
  }
}
