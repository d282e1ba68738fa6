/**
 * One-time tickets of the `/remote` namespace (`spec/protocol-admin.md` §16.2), with the hardening
 * of the Note there: a ticket records the requester's realm, sessions are keyed by
 * (realm, session_id), and `expires_in` reports the configured TTL (not a fixed 60).
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
}

/** Outstanding tickets at most (hardening: a ticket flood cannot grow memory without bound). */
export const MAX_OUTSTANDING_TICKETS = 10_000;

export class TicketStore {
  private readonly tickets = new Map<string, Ticket>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether another ticket may be issued (expired ones are swept first when full). */
  hasRoom(): boolean {
    if (this.tickets.size < MAX_OUTSTANDING_TICKETS) return true;
    this.sweep();
    return this.tickets.size < MAX_OUTSTANDING_TICKETS;
  }

  /** Issues a ticket valid for `ttlMs`. */
  issue(
    realm: string,
    sessionId: string,
    role: RemoteRole,
    ttlMs: number,
    machineId: string | null,
  ) {
    const ticket: Ticket = {
      ticket: randomBytes(16).toString('hex'),
      realm,
      sessionId,
      role,
      expiresAt: this.now() + ttlMs,
      machineId,
    };
    this.tickets.set(ticket.ticket, ticket);
    return ticket;
  }

  /** Takes a ticket out (single use); null when unknown or expired. */
  consume(value: unknown): Ticket | null {
    if (typeof value !== 'string') return null;
    const t = this.tickets.get(value);
    if (!t) return null;
    this.tickets.delete(value);
    return t.expiresAt > this.now() ? t : null;
  }

  /** Drops expired tickets; returns how many. */
  sweep(): number {
    const now = this.now();
    let n = 0;
    for (const [k, t] of this.tickets) {
      if (t.expiresAt <= now) {
        this.tickets.delete(k);
        n++;
      }
    }
    return n;
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
  }
}

/** A random 16-hex session id (§16.2, when the request names none). */
export function newSessionId(): string {
  return randomBytes(8).toString('hex');
}
