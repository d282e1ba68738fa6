/**
 * One-time tickets of the `/remote` namespace (`spec/protocol-admin.md` §16.2), with the hardening
 * of the Note there: a ticket records the requester's realm, sessions are keyed by
 * (realm, session_id), and `expires_in` reports the configured TTL (not a fixed 60).
 *
 * Bounded (issue 20 item 4): at most `MAX_OUTSTANDING_TICKETS` broker-wide, and quotas below it
 * per requesting socket, per client IP and per realm (`remote.max_tickets_per_socket` /
 * `_per_ip` / `_per_realm`, defaults in `DEFAULT_TICKET_QUOTAS`), so one socket cannot take every
 * ticket and deny `/remote` to every realm. Counts go when a ticket is used or expires.
 */
import { randomBytes } from 'node:crypto';

export type RemoteRole = 'agent' | 'viewer';

export interface Ticket {
  ticket: string;
  realm: string;
  sessionId: string;
  role: RemoteRole;
  /** Epoch ms. */
  expiresAt: number;
  machineId: string | null;
  /** The requesting socket and its client IP (quotas). */
  owner: TicketOwner;
}

export interface TicketOwner {
  socket: string;
  ip: string;
}

/** Outstanding tickets one socket / one IP / one realm may hold (each ≤ 0 ⇒ no quota). */
export interface TicketQuotas {
  perSocket: number;
  perIp: number;
  perRealm: number;
}

export const DEFAULT_TICKET_QUOTAS: Readonly<TicketQuotas> = Object.freeze({
  perSocket: 16,
  perIp: 100,
  perRealm: 1_000,
});

/** Which bound refused a ticket. */
export type TicketRefusal = 'total' | 'socket' | 'ip' | 'realm';

/** Shortest time (ms) between two sweeps forced by a full table or quota. */
const FORCED_SWEEP_MS = 1_000;

const bump = (m: Map<string, number>, k: string, d: number): void => {
  const n = (m.get(k) ?? 0) + d;
  if (n > 0) m.set(k, n);
  else m.delete(k);
};

/** Outstanding tickets at most (hardening: a ticket flood cannot grow memory without bound). */
export const MAX_OUTSTANDING_TICKETS = 10_000;

export class TicketStore {
  private readonly tickets = new Map<string, Ticket>();
  private readonly perSocket = new Map<string, number>();
  private readonly perIp = new Map<string, number>();
  private readonly perRealm = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private lastForcedSweep = -Infinity;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxOutstanding: number = MAX_OUTSTANDING_TICKETS,
  ) {}

  /** Whether another ticket may be issued (expired ones are swept first when full). */
  hasRoom(): boolean {
    return this.refusal(null, '', DEFAULT_TICKET_QUOTAS) === null;
  }

  /**
   * The bound a new ticket for `owner` in `realm` would exceed, or null. Expired tickets are
   * swept first (at most once a second) when a bound is reached.
   */
  refusal(owner: TicketOwner | null, realm: string, quotas: TicketQuotas): TicketRefusal | null {
    const over = (): TicketRefusal | null => {
      if (this.tickets.size >= this.maxOutstanding) return 'total';
      if (owner === null) return null;
      if (quotas.perSocket > 0 && (this.perSocket.get(owner.socket) ?? 0) >= quotas.perSocket) {
        return 'socket';
      }
      if (quotas.perIp > 0 && (this.perIp.get(owner.ip) ?? 0) >= quotas.perIp) return 'ip';
      if (quotas.perRealm > 0 && (this.perRealm.get(realm) ?? 0) >= quotas.perRealm) {
        return 'realm';
      }
      return null;
    };
    if (over() === null) return null;
    const now = this.now();
    if (now - this.lastForcedSweep < FORCED_SWEEP_MS) return over();
    this.lastForcedSweep = now;
    this.sweep();
    return over();
  }

  /** Outstanding tickets of one requesting socket (tests). */
  heldBySocket(socketId: string): number {
    return this.perSocket.get(socketId) ?? 0;
  }

  /** Issues a ticket valid for `ttlMs`. */
  issue(
    realm: string,
    sessionId: string,
    role: RemoteRole,
    ttlMs: number,
    machineId: string | null,
    owner: TicketOwner = { socket: '', ip: '' },
  ) {
    const ticket: Ticket = {
      ticket: randomBytes(16).toString('hex'),
      realm,
      sessionId,
      role,
      expiresAt: this.now() + ttlMs,
      machineId,
      owner,
    };
    this.tickets.set(ticket.ticket, ticket);
    this.count(ticket, 1);
    return ticket;
  }

  /** Takes a ticket out (single use); null when unknown or expired. */
  consume(value: unknown): Ticket | null {
    if (typeof value !== 'string') return null;
    const t = this.tickets.get(value);
    if (!t) return null;
    this.remove(t);
    return t.expiresAt > this.now() ? t : null;
  }

  /** Drops expired tickets; returns how many. */
  sweep(): number {
    const now = this.now();
    let n = 0;
    for (const t of this.tickets.values()) {
      if (t.expiresAt <= now) {
        this.remove(t);
        n++;
      }
    }
    return n;
  }

  private remove(t: Ticket): void {
    if (this.tickets.delete(t.ticket)) this.count(t, -1);
  }

  private count(t: Ticket, d: 1 | -1): void {
    bump(this.perSocket, t.owner.socket, d);
    bump(this.perIp, t.owner.ip, d);
    bump(this.perRealm, t.realm, d);
  }

  get size(): number {
    return this.tickets.size;
  }

  /** Sweeps every `intervalMs` until `close`. */
  start(intervalMs: number): void {
    this.timer ??= setInterval(() => this.sweep(), intervalMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.tickets.clear();
    this.perSocket.clear();
    this.perIp.clear();
    this.perRealm.clear();
  }
}

/** A random 16-hex session id (§16.2, when the request names none). */
export function newSessionId(): string {
  return randomBytes(8).toString('hex');
}
