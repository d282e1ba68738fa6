/**
 * What the broker remembers of each connection for `client_detail` (issue 27; docs/management.md
 * "Client detail and control"): address, transport, realm, role and what admitted it, counters,
 * and a bounded event history. Kept for live connections and, after they end, for the most
 * recent `maxClosed` of them for `closedTtlMs`, so an operator can still see why one went away.
 *
 * Memory is bounded: `historySize` entries per connection (repeats of a rate-limit or drop
 * reason fold into one entry with a count), `maxClosed` closed records. Nothing here holds a
 * secret: `admittedBy` is the kind of credential.
 */
import { ClientEventKind, type ClientDetail, type ClientEvent } from '../../shared/client-detail';

/** Entries kept per connection. */
export const HISTORY_SIZE = 50;
/** Closed connections kept. */
export const MAX_CLOSED = 200;
/** How long a closed connection is kept, ms (1 h). */
export const CLOSED_TTL_MS = 60 * 60 * 1000;

/** One connection's record; the transports' trackers update it in place. */
export interface ClientRecord {
  readonly protocol: 'socket.io' | 'mqtt';
  /** socket id or MQTT client id (may be set late: MQTT knows it at CONNECT). */
  clientId: string;
  transport: string;
  realm: string;
  ip: string;
  role: string | null;
  admittedBy: string | null;
  username?: string | null;
  protocolVersion?: number;
  /** socket.io: bound names, read at snapshot time. */
  names?: () => string[];
  readonly connectedAt: number;
  closedAt: number | null;
  closeReason: string | null;
  messagesIn: number;
  messagesOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Byte counters read at snapshot time (MQTT: the TCP socket's own), added to the fields. */
  liveBytes?: () => { in: number; out: number };
  readonly events: ClientEvent[];
  /** Ends the connection (`close_client`); null once closed. */
  close: ((by: string) => void) | null;
}

/** Kinds whose consecutive repeats (same detail) fold into one entry with a count. */
const FOLDED: ReadonlySet<ClientEventKind> = new Set([
  ClientEventKind.RATE_LIMITED,
  ClientEventKind.DROPPED,
  ClientEventKind.AUTH_FAIL,
]);

const key = (realm: string, clientId: string) => `${realm}\u0000${clientId}`;

export class ClientHistory {
  /** Live records by realm + id (a record moves key when its realm is granted). */
  private readonly live = new Map<string, ClientRecord>();
  /** Closed records, oldest first (Map insertion order). */
  private readonly closed = new Map<string, ClientRecord>();
  /**
   * The last `close_client` of each (realm, client id), so the client's next admitted connection
   * says it came back after one (a device that reconnects at once gets a fresh record).
   */
  private readonly forceClosed = new Map<string, { at: number; by: string }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits = {
      historySize: HISTORY_SIZE,
      maxClosed: MAX_CLOSED,
      closedTtlMs: CLOSED_TTL_MS,
    },
  ) {}

  /** Starts the record of a new connection (history: `connect`). */
  open(
    init: Pick<ClientRecord, 'protocol' | 'clientId' | 'transport' | 'realm' | 'ip'> &
      Partial<Pick<ClientRecord, 'names' | 'liveBytes' | 'close' | 'username'>>,
  ): ClientRecord {
    const record: ClientRecord = {
      role: null,
      admittedBy: null,
      connectedAt: this.now(),
      closedAt: null,
      closeReason: null,
      messagesIn: 0,
      messagesOut: 0,
      bytesIn: 0,
      bytesOut: 0,
      events: [],
      close: null,
      ...init,
    };
    this.event(record, ClientEventKind.CONNECT, record.transport);
    this.live.set(key(record.realm, record.clientId), record);
    return record;
  }

  /** Appends to a record's history; a repeat of the last entry's kind and detail folds into it. */
  event(record: ClientRecord, kind: ClientEventKind, detail?: string, count = 1): void {
    const last = record.events[record.events.length - 1];
    // What a client can repeat at will folds, so it cannot push the rest out of the ring.
    const folds = FOLDED.has(kind);
    if (folds && last && last.kind === kind && last.detail === detail) {
      last.count = (last.count ?? 1) + count;
      last.at = this.now();
      return;
    }
    const entry: ClientEvent = { at: this.now(), kind };
    if (detail !== undefined) entry.detail = detail;
    if (kind === ClientEventKind.CLOSED_BY_MANAGER) this.rememberForceClose(record, detail);
    if (count > 1) entry.count = count;
    record.events.push(entry);
    if (record.events.length > this.limits.historySize) record.events.shift();
  }

  /** The record was admitted into `realm` (history: `auth_ok`); re-keyed under that realm. */
  admitted(record: ClientRecord, realm: string, role: string, admittedBy: string): void {
    if (record.closedAt === null) {
      const old = key(record.realm, record.clientId);
      if (this.live.get(old) === record) this.live.delete(old);
      this.live.set(key(realm, record.clientId), record);
    }
    record.realm = realm;
    record.role = role;
    record.admittedBy = admittedBy;
    const previous = this.forceClosed.get(key(realm, record.clientId));
    const after =
      previous && previous.at <= record.connectedAt
        ? `; its previous connection was closed by ${previous.by} at ${new Date(previous.at).toISOString()}`
        : '';
    this.event(record, ClientEventKind.AUTH_OK, `${role} via ${admittedBy}${after}`);
  }

  private rememberForceClose(record: ClientRecord, by: string | undefined): void {
    const k = key(record.realm, record.clientId);
    this.forceClosed.delete(k);
    this.forceClosed.set(k, { at: this.now(), by: by ?? 'a manager' });
    // Bounded like the closed records: the oldest goes first.
    if (this.forceClosed.size > this.limits.maxClosed) {
      const oldest = this.forceClosed.keys().next().value;
      if (oldest !== undefined) this.forceClosed.delete(oldest);
    }
  }

  /** The connection ended (history: `disconnect`); kept among the closed ones. */
  ended(record: ClientRecord, reason: string): void {
    if (record.closedAt !== null) return;
    const bytes = record.liveBytes?.();
    if (bytes) {
      record.bytesIn += bytes.in;
      record.bytesOut += bytes.out;
      record.liveBytes = undefined;
    }
    const names = record.names?.();
    record.names = names ? () => names : undefined;
    record.closedAt = this.now();
    record.closeReason = reason;
    record.close = null;
    this.event(record, ClientEventKind.DISCONNECT, reason);
    const k = key(record.realm, record.clientId);
    if (this.live.get(k) === record) this.live.delete(k);
    this.closed.delete(k);
    this.closed.set(k, record);
    this.prune();
  }

  /** The live record of `clientId` in `realm`, else the most recent closed one; undefined if none. */
  find(realm: string, clientId: string): ClientRecord | undefined {
    this.prune();
    const k = key(realm, clientId);
    return this.live.get(k) ?? this.closed.get(k);
  }

  /** Live connections tracked now (tests, stats). */
  get liveCount(): number {
    return this.live.size;
  }

  /** Closed connections kept now. */
  get closedCount(): number {
    this.prune();
    return this.closed.size;
  }

  /** The `client_detail` document of `record`. */
  detail(record: ClientRecord): ClientDetail {
    const bytes = record.liveBytes?.() ?? { in: 0, out: 0 };
    const out: ClientDetail = {
      client_id: record.clientId,
      protocol: record.protocol,
      transport: record.transport,
      realm: record.realm,
      ip: record.ip,
      role: record.role,
      admitted_by: record.admittedBy,
      connected_since: record.connectedAt,
      online: record.closedAt === null,
      disconnected_at: record.closedAt,
      disconnect_reason: record.closeReason,
      messages_in: record.messagesIn,
      messages_out: record.messagesOut,
      bytes_in: record.bytesIn + bytes.in,
      bytes_out: record.bytesOut + bytes.out,
      history: record.events.map((e) => ({ ...e })),
    };
    if (record.username !== undefined) out.username = record.username;
    if (record.protocolVersion !== undefined) out.protocol_version = record.protocolVersion;
    if (record.names) out.names = record.names();
    return out;
  }

  /** Drops closed records past the count or the age bound (oldest first). */
  private prune(): void {
    const cutoff = this.now() - this.limits.closedTtlMs;
    for (const [k, record] of this.closed) {
      if (this.closed.size <= this.limits.maxClosed && (record.closedAt ?? 0) >= cutoff) break;
      this.closed.delete(k);
    }
  }
}
