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
 *
 * The message and byte buckets belong to the *client*, not the socket (issue 20 item 7): keyed by
 * the credential that admitted it (`credentialAdmitted`), else by realm and client IP, and
 * shared by all its sockets (and MQTT connections), so reconnecting or opening more sockets
 * does not add tokens. The client IP honours `X-Forwarded-For` only from trusted proxies
 * (`client-address.ts`).
 */
import type { IncomingMessage } from 'node:http';
import { ClientEvent, Protocol, ServerEvent } from '../../shared/protocol-events';
import type { PendingCaps } from '../auth/authorization-requests';
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { BrokerSocket } from '../transport/socket-types';
import { LimitsConfig, type LimitKey } from './limits-config';
import type { LimitMetrics, RejectReasonValue } from './limit-metrics';
import { clientAddress } from './client-address';
import { ConnectionCounts } from './connection-counts';
import { clientKey, EventQuotas, type QuotaState } from './event-quotas';
import { rateLimitReply, type Refusal } from './refusal';
import { watchRejections } from './rejection-watch';
import { SharedBuckets, type ClientBuckets } from './shared-buckets';
import { BucketTable } from './token-bucket';

export { rateLimitReply, type Refusal } from './refusal';

/** Delay between a connection-level `RATE_LIMITED` and the disconnect (ms, §11.3). */
export const REFUSED_DISCONNECT_DELAY_MS = 100;
const NOTICE_INTERVAL_MS = 1_000;

interface SocketState extends QuotaState {
  lastNotice: number;
  preAuthEvents: number;
  preAuthBytes: number;
  /** The refusal that is closing this socket (its later events get the same answer). */
  closedBy: Refusal | null;
  /** A signed event of this socket verified: a manager, off the pre-auth byte budget from now on. */
  provenManager: boolean;
}

export class LimitsService {
  readonly config: LimitsConfig;
  private readonly sockets = new Map<string, SocketState>();
  private readonly connections: ConnectionCounts;
  private readonly quotas: EventQuotas;
  private readonly realmCreation = new BucketTable();
  private readonly clients: SharedBuckets;
  /** Told of every socket.io refusal (the client's history, issue 27). */
  onRefused?: (socket: BrokerSocket, refusal: Refusal) => void;

  constructor(
    readBlock: () => unknown,
    realms: RealmDirectory,
    private readonly metrics: LimitMetrics,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    /** `max_http_buffer_size`, for the oversize-frame log line (bytes). */
    private readonly maxFrameBytes: number = 0,
  ) {
    this.config = new LimitsConfig(readBlock as () => null, now);
    this.clients = new SharedBuckets(now());
    this.connections = new ConnectionCounts(this.config, now);
    this.quotas = new EventQuotas(this.config, realms, this.clients, now);
  }

  /**
   * The client IP of a socket (§11.1): its peer address, or, when the peer is a proxy
   * `trust_proxy` trusts, the right-most untrusted `X-Forwarded-For` hop.
   */
  clientIp(socket: BrokerSocket): string {
    return this.ipOf(socket.handshake.headers['x-forwarded-for'], socket.handshake.address);
  }

  /** The client IP of an HTTP request (§11.1), by the same rule as `clientIp`. */
  requestIp(req: IncomingMessage): string {
    return this.ipOf(req.headers['x-forwarded-for'], req.socket.remoteAddress);
  }

  private ipOf(forwarded: string | string[] | undefined, address: string | undefined): string {
    return clientAddress(this.config.trustProxy, forwarded, address);
  }

  /**
   * The key of a client's shared buckets in `realm`: its credential (a token digest, a JWT
   * subject…), else its IP. Connections with the same key share one message and byte bucket.
   */
  static clientKey(realm: string, credential: string | null, ip: string): string {
    return clientKey(realm, credential, ip);
  }

  /** The shared buckets of `key`, referenced until `releaseClient` (MQTT). */
  acquireClient(key: string): ClientBuckets {
    return this.clients.acquire(key, this.now());
  }

  /** Gives back an entry taken by `acquireClient`. */
  releaseClient(entry: ClientBuckets): void {
    this.clients.release(entry, this.now());
  }

  /** Client entries held now (referenced or idle; tests, stats). */
  get clientBuckets(): number {
    return this.clients.size;
  }

  /**
   * Records the credential that admitted `socket` (call once its realm is granted): from its
   * next message on, the socket spends the buckets of that credential in its realm, shared with
   * every other connection of it. `null` (no credential of its own: auth off, an open realm, a
   * role-declared client, a realm's pre-shared key) ⇒ keyed by realm and client IP.
   */
  credentialAdmitted(socket: BrokerSocket, credential: string | null): void {
    const st = this.sockets.get(socket.id);
    if (!st || st.credential === credential) return;
    st.credential = credential;
    this.dropClient(st);
  }

  private dropClient(st: SocketState): void {
    if (st.client === null) return;
    this.clients.release(st.client, this.now());
    st.client = null;
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
    const refusal = this.connections.refusal(ip, realm);
    if (refusal) {
      this.refuse(socket, null, refusal);
      this.dropLater(socket);
      return false;
    }
    const state: SocketState = {
      ip,
      realm,
      credential: null,
      client: null,
      registrations: 0,
      subscriptions: 0,
      lastNotice: -Infinity,
      preAuthEvents: 0,
      preAuthBytes: 0,
      closedBy: null,
      provenManager: false,
    };
    this.sockets.set(socket.id, state);
    this.connections.add(ip, realm);
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
    const refusal = this.connections.refusal(ip, realm);
    if (refusal) {
      this.metrics.rateLimit(refusal.reason);
      return refusal;
    }
    this.connections.add(ip, realm);
    return null;
  }

  /** Ends the count of a connection admitted by `admitOtherConnection`. */
  releaseOtherConnection(ip: string, realm: string): void {
    this.connections.remove(ip, realm);
  }

  /**
   * Re-counts a socket whose realm changed (authentication). Refused → RATE_LIMITED and
   * disconnect. Called lazily by `admitEvent`; the auth code may call it on `AUTH_OK` too.
   */
  realmChanged(socket: BrokerSocket): boolean {
    const st = this.sockets.get(socket.id);
    if (!st || st.realm === socket.data.realm) return !st?.closedBy;
    const refusal = this.connections.moveRealm(st.realm, socket.data.realm);
    st.realm = socket.data.realm;
    this.dropClient(st);
    if (refusal) {
      this.refuse(socket, st, refusal);
      this.close(socket, st, refusal);
      return false;
    }
    return true;
  }

  /**
   * Whether an inbound event may be handled (called before parsing; `event` may be a name no
   * route handles, which counts against the pre-auth budget like any other). A refused event is
   * dropped and answered with `RATE_LIMITED` (at most once a second per socket) and, when the
   * client passed an acknowledgement callback, with `rateLimitReply(refusal)` — also when the
   * refusal is the pre-auth budget or a realm's connection cap, so no call is left unanswered
   * (issue 19). Never throws.
   */
  admitEvent(socket: BrokerSocket, event: string, raw: unknown, ack: unknown): boolean {
    const st = this.sockets.get(socket.id);
    if (!st) return true;
    const refusal = this.eventRefusal(socket, st, event, raw);
    if (!refusal) return true;
    if (typeof ack === 'function') (ack as (r: unknown) => void)(rateLimitReply(refusal));
    return false;
  }

  private eventRefusal(
    socket: BrokerSocket,
    st: SocketState,
    event: string,
    raw: unknown,
  ): Refusal | null {
    const budget = this.preAuth(socket, st, 1, 0);
    if (budget) return budget;
    // Realm counts follow authentication even while limits are off (they may be turned on).
    if (st.realm !== socket.data.realm && !this.realmChanged(socket)) return st.closedBy;
    // The default bounds (subscriptions per socket) apply without a block too.
    if (event !== ClientEvent.SUBSCRIBE && !this.config.enabled) return null;
    let refusal: Refusal | null = null;
    switch (event) {
      case ClientEvent.PRODUCE:
      case ClientEvent.PRODUCE_CHUNK:
        refusal = this.quotas.message(st, event, raw);
        break;
      case ClientEvent.PRODUCER:
      case ClientEvent.CONSUMER:
        refusal = this.quotas.registration(st, event, raw);
        break;
      case ClientEvent.SUBSCRIBE:
        refusal = this.quotas.subscription(st);
        break;
      default:
        return null;
    }
    if (refusal) this.refuse(socket, st, refusal);
    return refusal;
  }

  /**
   * Takes a socket whose signed event verified off the pre-auth budget (`spec/protocol-admin.md`
   * §6: each signed event carries its own proof, so a manager need not authenticate its socket).
   * The budget bounds what an anonymous socket may cost; a socket that proved it holds an admin
   * token or a realm's manager key is not anonymous: its bytes are no longer counted from then
   * on and what it already spent is given back. (Crediting each command's own size instead left
   * the frame's envelope — event name, ack id — on the count: a manager socket was dropped after
   * ~25,000 valid proofs.) Events stay counted and each verified one is given back exactly, so
   * unsigned events and failed proofs on that socket still spend the event budget.
   * `_bytes` (the command's approximate frame size) is no longer needed. Never throws.
   */
  creditSignedEvent(socket: BrokerSocket, _bytes: number): void {
    const st = this.sockets.get(socket.id);
    if (!st) return;
    st.provenManager = true;
    st.preAuthEvents = Math.max(0, st.preAuthEvents - 1);
    st.preAuthBytes = 0;
  }

  /**
   * Pre-auth budget. Events are counted when dispatched (a client may pipeline events behind its
   * `AUTHENTICATION`; those handled after it succeeded are free); bytes when the frame arrives,
   * since that is when the broker holds them. Returns the refusal when the budget is exhausted
   * (or the socket is already closing), else null.
   */
  private preAuth(
    socket: BrokerSocket,
    st: SocketState,
    events: number,
    bytes: number,
  ): Refusal | null {
    if (st.closedBy) return st.closedBy;
    if ((socket.data as { authenticated?: unknown }).authenticated !== false) return null;
    const budget = this.config.preAuth();
    st.preAuthEvents += events;
    // A proven manager's frames are its commands: their bytes are not anonymous traffic.
    if (!st.provenManager) st.preAuthBytes += bytes;
    let reason: LimitKey | null = null;
    if (budget.events !== undefined && st.preAuthEvents > budget.events) reason = 'pre_auth_events';
    else if (budget.bytes !== undefined && st.preAuthBytes > budget.bytes)
      reason = 'pre_auth_bytes';
    if (!reason) return null;
    this.logger.warn({ socket: socket.id, ip: st.ip, reason }, 'pre-auth budget exhausted');
    const refusal: Refusal = { reason, retryAfter: 1 };
    this.refuse(socket, st, refusal);
    this.close(socket, st, refusal);
    return refusal;
  }

  /**
   * Counts a breach of `reason` and tells the socket, at most once per second per socket (the
   * first notice of a socket without state always goes out).
   */
  refuse(socket: BrokerSocket, st: SocketState | null, refusal: Refusal): void {
    this.metrics.rateLimit(refusal.reason);
    this.onRefused?.(socket, refusal);
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

  private close(socket: BrokerSocket, st: SocketState, refusal: Refusal): void {
    st.closedBy = refusal;
    this.dropLater(socket);
  }

  private dropLater(socket: BrokerSocket): void {
    setTimeout(() => socket.disconnect(true), REFUSED_DISCONNECT_DELAY_MS).unref();
  }

  private release(id: string): void {
    const st = this.sockets.get(id);
    if (!st) return;
    this.sockets.delete(id);
    this.dropClient(st);
    this.connections.remove(st.ip, st.realm);
  }
}
