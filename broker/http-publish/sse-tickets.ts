/**
 * `POST /sub-ticket` tickets (`spec/protocol-extensions.md` §5.4): 48 lowercase hex chars
 * (24 random bytes), bound to a realm, expiring `ticket_ttl_ms` (60 s) after issue, consumed on
 * first presentation even when that request is then refused. Node-local memory; expired
 * tickets are swept every 60 s. Note 5-J: at most `SSE_MAX_TICKETS_PER_TOKEN` (10) outstanding
 * per token hash — the oldest goes when an 11th is issued.
 */
import { randomBytes } from 'node:crypto';
import { SSE_MAX_TICKETS_PER_TOKEN } from './http-publish-schema';
import type { HttpPrincipal } from './http-reply';

interface Ticket {
  realm: string;
  /** Who bought it: the principal of the stream it opens (Note 5-G). */
  principal: HttpPrincipal;
  expiresAt: number;
}

const SWEEP_MS = 60_000;

export class SseTickets {
  private readonly tickets = new Map<string, Ticket>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweep = setInterval(() => this.expire(), SWEEP_MS);
    this.sweep.unref();
  }

  /** Issues a ticket for `realm`, valid for `ttlMs`. */
  issue(realm: string, principal: HttpPrincipal, ttlMs: number): string {
    this.expire();
    const mine = [...this.tickets].filter(([, t]) => t.principal.tokenHash === principal.tokenHash);
    if (mine.length >= SSE_MAX_TICKETS_PER_TOKEN) this.tickets.delete(mine[0]![0]);
    const ticket = randomBytes(24).toString('hex');
    this.tickets.set(ticket, { realm, principal, expiresAt: this.now() + ttlMs });
    return ticket;
  }

  /** Consumes `ticket`: its realm and principal, or null when unknown, used or expired. */
  take(ticket: string): { realm: string; principal: HttpPrincipal } | null {
    const t = this.tickets.get(ticket);
    if (!t) return null;
    this.tickets.delete(ticket);
    return t.expiresAt > this.now() ? { realm: t.realm, principal: t.principal } : null;
  }

  get size(): number {
    return this.tickets.size;
  }

  close(): void {
    clearInterval(this.sweep);
    this.tickets.clear();
  }

  private expire(): void {
    const now = this.now();
    for (const [k, t] of this.tickets) if (t.expiresAt <= now) this.tickets.delete(k);
  }
}
