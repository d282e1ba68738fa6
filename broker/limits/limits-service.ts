/**
 * Enforcement of rate limits and quotas (`spec/protocol-admin.md` §11.3) on the main namespace:
 * - connection level (`admitConnection`): `max_connections_per_ip` (retry_after 30),
 *   `connections_per_minute_per_ip` (bucket n/60 s, burst n) and Switchboard's
 *   `max_connections_per_realm` → `RATE_LIMITED` then disconnect after ~100 ms, no handlers;
 * - per event (`admitEvent`, before parsing, §6.4): `messages_per_second`/`message_burst` and
 *   `bytes_per_second`/`bytes_burst` on `PRODUCE` and each `PRODUCE_CHUNK` (dropped); the
 *   registration and subscription quotas (refused, retry_after 60);
 * - a pre-auth budget (Switchboard hardening, §11.3 Note): events and payload bytes a socket may
 *   send while `socket.data.authenticated === false`; over it → `RATE_LIMITED` and disconnect.
 * `RATE_LIMITED {code: 429, reason, retry_after}` goes out at most once per second per socket;
 * `tyo_mq_rate_limited_total{reason}` counts every breach. Per-socket state goes on disconnect.
 */
import type { IncomingMessage } from 'node:http';
import {
  ClientEvent,
  Protocol,
  ServerEvent,
  type ClientEventName,
} from '../../shared/protocol-events';
import type { PendingCaps } from '../auth/authorization-requests';
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { BrokerSocket } from '../transport/socket-types';
import { LimitsConfig, type LimitKey } from './limits-config';
import type { LimitMetrics, RejectReasonValue } from './limit-metrics';
import { watchRejections } from './rejection-watch';
import { BucketTable, TokenBucket } from './token-bucket';

/** A refused action: the limit key and the seconds to wait. */
export interface Refusal {
  reason: LimitKey;
  retryAfter: number;
}

/** Delay between a connection-level `RATE_LIMITED` and the disconnect (ms, §11.3). */
export const REFUSED_DISCONNECT_DELAY_MS = 100;
const NOTICE_INTERVAL_MS = 1_000;
const QUOTA_RETRY_S = 60;
const CONNECTIONS_RETRY_S = 30;

interface SocketState {
  ip: string;
  realm: string;
  messages: TokenBucket | null;
  bytes: TokenBucket | null;
  registrations: number;
  subscriptions: number;
  lastNotice: number;
  preAuthEvents: number;
  preAuthBytes: number;
  closing: boolean;
}

const bump = (m: Map<string, number>, k: string, d: number) => {
  const n = (m.get(k) ?? 0) + d;
  if (n > 0) m.set(k, n);
  else m.delete(k);
};

function utf8Length(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return 1;
  }
}

function field(raw: unknown, key: string): unknown {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

export class LimitsService {
  readonly config: LimitsConfig;
  private readonly sockets = new Map<string, SocketState>();
  private readonly perIp = new Map<string, number>();
  private readonly perRealm = new Map<string, number>();
  private readonly ipBuckets = new BucketTable();
  private readonly realmCreation = new BucketTable();

  constructor(
    readBlock: () => unknown,
    private readonly realms: RealmDirectory,
    private readonly metrics: LimitMetrics,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    /** `max_http_buffer_size`, for the oversize-frame log line (bytes). */
    private readonly maxFrameBytes: number = 0,
  ) {
    this.config = new LimitsConfig(readBlock as () => null, now);
  }

  /** The client IP of a socket (§11.1): first `X-Forwarded-For` entry under `trust_proxy`. */
  clientIp(socket: BrokerSocket): string {
    return this.ipOf(socket.handshake.headers['x-forwarded-for'], socket.handshake.address);
  }

  /** The client IP of an HTTP request (§11.1), by the same rule as `clientIp`. */
  requestIp(req: IncomingMessage): string {
    return this.ipOf(req.headers['x-forwarded-for'], req.socket.remoteAddress);
  }

  private ipOf(forwarded: string | string[] | undefined, address: string | undefined): string {
    if (this.config.trustProxy) {
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
      if (first) return first;
    }
    return address || 'unknown';
  }

  /**
   * Admits a new `/` socket or refuses it (RATE_LIMITED, disconnect after ~100 ms). Call before
   * any handler is installed; an admitted socket is tracked until it disconnects.
   */
  admitConnection(socket: BrokerSocket): boolean {
    const ip = this.clientIp(socket);
    watchRejections(socket, ip, this.metrics, this.logger, this.maxFrameBytes);
    // Before the connection handler runs the socket has no realm yet: it starts in `default`.
    const realm = socket.data.realm ?? Protocol.DEFAULT_REALM;
    const refusal = this.connectionRefusal(ip, realm);
    if (refusal) {
      this.refuse(socket, null, refusal);
      this.dropLater(socket);
      return false;
    }
    const state: SocketState = {
      ip,
      realm,
      messages: null,
      bytes: null,
      registrations: 0,
      subscriptions: 0,
      lastNotice: -Infinity,
      preAuthEvents: 0,
      preAuthBytes: 0,
      closing: false,
    };
    this.sockets.set(socket.id, state);
    bump(this.perIp, ip, 1);
    bump(this.perRealm, realm, 1);
    socket.conn.on('packet', (packet: { type: string; data?: unknown }) => {
      if (packet.type !== 'message') return;
      const data = packet.data;
      const bytes =
        typeof data === 'string' ? data.length : ((data as Buffer | undefined)?.byteLength ?? 0);
      this.preAuth(socket, state, 0, bytes);
    });
    socket.once('disconnect', () => this.release(socket.id));
    return true;
  }

  /**
   * Admits a connection of another protocol (MQTT) from `ip` into `realm`, counted with the
   * `/` sockets against the connection limits until `releaseConnection`. Null when admitted;
   * a refusal is counted in `tyo_mq_rate_limited_total` and the caller closes the connection.
   */
  admitOtherConnection(ip: string, realm: string): Refusal | null {
    const refusal = this.connectionRefusal(ip, realm);
    if (refusal) {
      this.metrics.rateLimit(refusal.reason);
      return refusal;
    }
    bump(this.perIp, ip, 1);
    bump(this.perRealm, realm, 1);
    return null;
  }

  /** Ends the count of a connection admitted by `admitOtherConnection`. */
  releaseOtherConnection(ip: string, realm: string): void {
    bump(this.perIp, ip, -1);
    bump(this.perRealm, realm, -1);
  }

  private connectionRefusal(ip: string, realm: string): Refusal | null {
    if (!this.config.enabled) return null;
    const maxPerIp = this.config.value('max_connections_per_ip');
    if (maxPerIp !== undefined && (this.perIp.get(ip) ?? 0) >= maxPerIp) {
      return { reason: 'max_connections_per_ip', retryAfter: CONNECTIONS_RETRY_S };
    }
    const perMinute = this.config.value('connections_per_minute_per_ip');
    if (perMinute !== undefined) {
      const r = this.ipBuckets.take(ip, 1, perMinute / 60, perMinute, this.now());
      if (!r.ok) return { reason: 'connections_per_minute_per_ip', retryAfter: r.retryAfter };
    }
    return this.realmRefusal(realm);
  }

  private realmRefusal(realm: string): Refusal | null {
    const max = this.config.value('max_connections_per_realm', realm);
    if (max !== undefined && (this.perRealm.get(realm) ?? 0) >= max) {
      return { reason: 'max_connections_per_realm', retryAfter: CONNECTIONS_RETRY_S };
    }
    return null;
  }

  /**
   * Re-counts a socket whose realm changed (authentication). Refused → RATE_LIMITED and
   * disconnect. Called lazily by `admitEvent`; the auth code may call it on `AUTH_OK` too.
   */
  realmChanged(socket: BrokerSocket): boolean {
    const st = this.sockets.get(socket.id);
    if (!st || st.realm === socket.data.realm) return !st?.closing;
    bump(this.perRealm, st.realm, -1);
    st.realm = socket.data.realm;
    const refusal = this.config.enabled ? this.realmRefusal(st.realm) : null;
    bump(this.perRealm, st.realm, 1);
    if (refusal) {
      this.refuse(socket, st, refusal);
      this.close(socket, st);
      return false;
    }
    return true;
  }

  /**
   * Whether an inbound event may be handled (called before parsing). A refused event is dropped
   * and answered with `RATE_LIMITED` (and, for a publisher waiting on a confirm, a failed
   * confirm). Never throws.
   */
  admitEvent(socket: BrokerSocket, event: ClientEventName, raw: unknown, ack: unknown): boolean {
    const st = this.sockets.get(socket.id);
    if (!st) return true;
    if (!this.preAuth(socket, st, 1, 0)) return false;
    // Realm counts follow authentication even while limits are off (they may be turned on).
    if (st.realm !== socket.data.realm && !this.realmChanged(socket)) return false;
    // The default bounds (subscriptions per socket) apply without a block too.
    if (event !== ClientEvent.SUBSCRIBE && !this.config.enabled) return true;
    let refusal: Refusal | null = null;
    switch (event) {
      case ClientEvent.PRODUCE:
      case ClientEvent.PRODUCE_CHUNK:
        refusal = this.messageRefusal(st, event, raw);
        break;
      case ClientEvent.PRODUCER:
      case ClientEvent.CONSUMER:
        refusal = this.registrationRefusal(st, event, raw);
        break;
      case ClientEvent.SUBSCRIBE:
        refusal = this.subscriptionRefusal(st);
        break;
      default:
        return true;
    }
    if (!refusal) return true;
    this.refuse(socket, st, refusal);
    if (typeof ack === 'function') {
      (ack as (r: unknown) => void)({
        ok: false,
        code: 'SWB_ERR_RATE_LIMITED',
        message: `Rate limited: ${refusal.reason}`,
        reason: refusal.reason,
        retry_after: refusal.retryAfter,
      });
    }
    return false;
  }

  private messageRefusal(st: SocketState, event: ClientEventName, raw: unknown): Refusal | null {
    const now = this.now();
    const msg = this.config.bucket('messages_per_second', 'message_burst', 3, st.realm);
    if (msg) {
      st.messages ??= new TokenBucket(msg.burst, now);
      const r = st.messages.take(1, msg.rate, msg.burst, now);
      if (!r.ok) return { reason: 'messages_per_second', retryAfter: r.retryAfter };
    }
    const bytes = this.config.bucket('bytes_per_second', 'bytes_burst', 2, st.realm);
    if (bytes) {
      const payload =
        event === ClientEvent.PRODUCE_CHUNK && typeof raw === 'object' ? field(raw, 'data') : raw;
      const cost = Math.max(1, utf8Length(payload));
      st.bytes ??= new TokenBucket(bytes.burst, now);
      const r = st.bytes.take(cost, bytes.rate, bytes.burst, now);
      if (!r.ok) return { reason: 'bytes_per_second', retryAfter: r.retryAfter };
    }
    return null;
  }

  private registrationRefusal(
    st: SocketState,
    event: ClientEventName,
    raw: unknown,
  ): Refusal | null {
    const perSocket = this.config.value('max_registrations_per_socket', st.realm);
    if (perSocket !== undefined && st.registrations >= perSocket) {
      return { reason: 'max_registrations_per_socket', retryAfter: QUOTA_RETRY_S };
    }
    const perRealm = this.config.value('max_registrations_per_realm', st.realm);
    if (perRealm !== undefined) {
      const registry = this.realms.get(st.realm);
      const count = registry ? registry.producers.size + registry.consumers.size : 0;
      const name = field(raw, 'name');
      // A name already registered (a reconnect) does not grow the registry.
      const known =
        typeof name === 'string' &&
        (event === ClientEvent.PRODUCER ? registry?.producers : registry?.consumers)?.has(name);
      if (!known && count >= perRealm) {
        return { reason: 'max_registrations_per_realm', retryAfter: QUOTA_RETRY_S };
      }
    }
    st.registrations++;
    return null;
  }

  private subscriptionRefusal(st: SocketState): Refusal | null {
    // Default 1,000 without a block (DEFAULT_BOUNDS): one socket cannot hold unbounded memory.
    const perSocket = this.config.bound('max_subscriptions_per_socket', st.realm);
    if (perSocket !== undefined && st.subscriptions >= perSocket) {
      return { reason: 'max_subscriptions_per_socket', retryAfter: QUOTA_RETRY_S };
    }
    const perRealm = this.config.value('max_subscriptions_per_realm', st.realm);
    if (perRealm !== undefined) {
      let count = 0;
      for (const byConsumer of this.realms.get(st.realm)?.subscriptions.values() ?? []) {
        count += byConsumer.size;
      }
      if (count >= perRealm) {
        return { reason: 'max_subscriptions_per_realm', retryAfter: QUOTA_RETRY_S };
      }
    }
    st.subscriptions++;
    return null;
  }

  /**
   * Gives back the pre-auth budget a correctly signed command used (`spec/protocol-admin.md` §6:
   * each signed event carries its own proof, so a manager need not authenticate its socket). The
   * budget exists to bound what an anonymous socket may cost; a proven manager is not anonymous,
   * and without this a console polling once a second would be cut off after 64 calls.
   * `bytes` is the command's approximate frame size. Never throws.
   */
  creditSignedEvent(socket: BrokerSocket, bytes: number): void {
    const st = this.sockets.get(socket.id);
    if (!st) return;
    st.preAuthEvents = Math.max(0, st.preAuthEvents - 1);
    st.preAuthBytes = Math.max(0, st.preAuthBytes - bytes);
  }

  /**
   * Pre-auth budget. Events are counted when dispatched (a client may pipeline events behind its
   * `AUTHENTICATION`; those handled after it succeeded are free); bytes when the frame arrives,
   * since that is when the broker holds them. Returns false when the budget is exhausted.
   */
  private preAuth(socket: BrokerSocket, st: SocketState, events: number, bytes: number): boolean {
    if (st.closing) return false;
    if ((socket.data as { authenticated?: unknown }).authenticated !== false) return true;
    const budget = this.config.preAuth();
    st.preAuthEvents += events;
    st.preAuthBytes += bytes;
    let reason: LimitKey | null = null;
    if (budget.events !== undefined && st.preAuthEvents > budget.events) reason = 'pre_auth_events';
    else if (budget.bytes !== undefined && st.preAuthBytes > budget.bytes)
      reason = 'pre_auth_bytes';
    if (!reason) return true;
    this.logger.warn({ socket: socket.id, ip: st.ip, reason }, 'pre-auth budget exhausted');
    this.refuse(socket, st, { reason, retryAfter: 1 });
    this.close(socket, st);
    return false;
  }

  /**
   * Counts a breach of `reason` and tells the socket, at most once per second per socket (the
   * first notice of a socket without state always goes out).
   */
  refuse(socket: BrokerSocket, st: SocketState | null, refusal: Refusal): void {
    this.metrics.rateLimit(refusal.reason);
    const now = this.now();
    if (st) {
      if (now - st.lastNotice < NOTICE_INTERVAL_MS) return;
      st.lastNotice = now;
    }
    this.logger.debug({ socket: socket.id, ...refusal }, 'rate limited');
    socket.emit(ServerEvent.RATE_LIMITED, {
      code: 429,
      reason: refusal.reason,
      retry_after: refusal.retryAfter,
    });
  }

  /** Counts a refused input (`tyo_mq_rejected_inputs_total{reason}`). */
  rejectedInput(reason: RejectReasonValue): void {
    this.metrics.rejectedInput(reason);
  }

  /** Counts a breach without a socket (HTTP routes, authorization requests). */
  recordBreach(reason: LimitKey): void {
    this.metrics.rateLimit(reason);
  }

  /**
   * The caps on locally pending authorization requests (§7.1, §11.3): broker-wide
   * `max_pending_authorization_requests`, and Switchboard's per-realm and per-IP quotas below
   * it. Default bounds (docs/limits.md): they apply without a `limits` block.
   */
  pendingRequestCaps(realm: string): PendingCaps {
    return {
      total: this.config.bound('max_pending_authorization_requests'),
      perRealm: this.config.bound('max_pending_authorization_requests_per_realm', realm),
      perIp: this.config.bound('max_pending_authorization_requests_per_ip'),
    };
  }

  /** `realms_per_hour_per_ip` for `POST /api/realms` (§10.7): null when allowed. */
  realmCreationRefusal(ip: string): Refusal | null {
    const n = this.config.value('realms_per_hour_per_ip');
    if (n === undefined) return null;
    const r = this.realmCreation.take(ip, 1, n / 3600, n, this.now());
    if (r.ok) return null;
    this.recordBreach('realms_per_hour_per_ip');
    return { reason: 'realms_per_hour_per_ip', retryAfter: r.retryAfter };
  }

  /** Sockets tracked now (tests, stats). */
  get trackedSockets(): number {
    return this.sockets.size;
  }

  private close(socket: BrokerSocket, st: SocketState): void {
    st.closing = true;
    this.dropLater(socket);
  }

  private dropLater(socket: BrokerSocket): void {
    setTimeout(() => socket.disconnect(true), REFUSED_DISCONNECT_DELAY_MS).unref();
  }

  private release(id: string): void {
    const st = this.sockets.get(id);
    if (!st) return;
    this.sockets.delete(id);
    bump(this.perIp, st.ip, -1);
    bump(this.perRealm, st.realm, -1);
  }
}
