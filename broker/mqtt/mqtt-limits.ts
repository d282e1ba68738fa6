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
 */
import type { Socket } from 'node:net';
import type { Client } from 'aedes';
import type { LimitsService, Refusal } from '../limits/limits-service';
import { TokenBucket } from '../limits/token-bucket';

interface ClientBudget {
  messages: TokenBucket | null;
  bytes: TokenBucket | null;
}

/** The client's IP: the TCP peer, or the HTTP request's for MQTT over WebSocket. */
export function mqttClientIp(client: Client): string {
  const conn = client.conn as Partial<Socket>;
  const req = (client as { req?: { socket?: Partial<Socket> } }).req;
  return conn.remoteAddress ?? req?.socket?.remoteAddress ?? 'unknown';
}

export class MqttLimits {
  private readonly budgets = new WeakMap<Client, ClientBudget>();

  constructor(
    private readonly limits: LimitsService,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts `client` (in `realm`) against the connection limits until its connection closes.
   * @returns null when admitted, else the refusal.
   */
  admit(client: Client, realm: string): Refusal | null {
    const ip = mqttClientIp(client);
    const refusal = this.limits.admitOtherConnection(ip, realm);
    if (refusal) return refusal;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.limits.releaseOtherConnection(ip, realm);
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
    const budget = this.budgets.get(client) ?? { messages: null, bytes: null };
    this.budgets.set(client, budget);
    const attempt = (first: boolean): void => {
      if (client.conn.destroyed) return;
      const wait = this.waitMs(budget, realm, bytes);
      if (wait === 0) {
        proceed();
        return;
      }
      if (first) this.limits.recordBreach(wait.reason);
      setTimeout(() => attempt(false), wait.ms).unref();
    };
    attempt(true);
  }

  /** 0 when both buckets gave their tokens, else how long to wait and why. */
  private waitMs(
    budget: ClientBudget,
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
