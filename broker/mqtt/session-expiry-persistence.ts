/**
 * Session Expiry for MQTT 5 sessions that outlive a restart (issue 24; OASIS MQTT 5.0
 * §3.1.2.11.2): a persistent session with Session Expiry Interval N ends N seconds after its
 * network connection closed, also when the broker restarted in between.
 *
 * aedes 2.0.0-beta.1 times the expiry in memory only (`scheduleSessionExpiry`, a timer per
 * session in `expiringSessions`): after a restart a stored session was kept for ever. So when a
 * connection of an MQTT 5 session that expires (0 < N < 0xFFFFFFFF) closes — the client left,
 * or the broker is stopping — its deadline (wall clock, ms) is stored with the session; a
 * client that connects with the id removes it. It is kept as a row of the session's
 * subscriptions under a reserved filter (`EXPIRY_FILTER`, which no MQTT filter can be: U+0000
 * is refused in filters), so it is written, deleted (with `cleanSubscriptions`), purged with a
 * realm and backed up exactly like the session's other rows, with no schema change; this layer
 * keeps it out of aedes' subscriptions.
 *
 * When the listener starts (`enforceStoredSessionExpiry`, before it accepts connections), a
 * restored session whose deadline passed is deleted — subscriptions, queued and in-flight
 * messages, QoS 2 receipts — so its client gets Session Present 0; the others get aedes' own
 * timer for the rest of their time (cancelled by aedes when the client connects). Its will is
 * left to aedes' will sweep, which publishes restored wills (will-refusals.ts). Sessions stored
 * without a deadline (MQTT 3.1.1, N = 0xFFFFFFFF, or written before this module) are kept.
 */
import type { Aedes, Client, Subscription } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
import { IdentifiedPersistence } from './identified-persistence';

/** The reserved subscription filter a session's deadline is stored under. */
export const EXPIRY_FILTER = '\u0000session-expiry';

/** aedes' "never expires" interval (seconds). */
const NEVER = 0xffff_ffff;

interface Deadline {
  topic: string;
  /** When the session ends, ms since the epoch. */
  expiresAt?: number;
}

export class SessionExpiryPersistence extends IdentifiedPersistence {
  /** client id → stored deadline (ms since the epoch). */
  readonly deadlines = new Map<string, number>();

  override async addSubscriptions(client: Client, subs: Subscription[]): Promise<void> {
    const rest = subs.filter((sub) => {
      if (sub.topic !== EXPIRY_FILTER) return true;
      const at = (sub as Deadline).expiresAt;
      if (typeof at === 'number' && Number.isFinite(at)) this.deadlines.set(client.id, at);
      return false;
    });
    if (rest.length > 0 || subs.length === 0) await super.addSubscriptions(client, rest);
  }

  override async removeSubscriptions(client: Client, topics: string[]): Promise<void> {
    if (topics.includes(EXPIRY_FILTER)) this.deadlines.delete(client.id);
    const rest = topics.filter((topic) => topic !== EXPIRY_FILTER);
    if (rest.length > 0) await super.removeSubscriptions(client, rest);
  }

  override async cleanSubscriptions(client: Client): Promise<void> {
    this.deadlines.delete(client.id);
    await super.cleanSubscriptions(client);
  }

  /** Deletes the session of `clientId` (not its will): subscriptions, queue, receipts. */
  async endSession(clientId: string): Promise<void> {
    const client = { id: clientId } as unknown as Client;
    // aedes' own way to empty a queue (`emptyOutgoingQueue`): each packet cleared in turn.
    const queued: AedesPacket[] = [];
    for await (const packet of this.outgoingStream(client) as AsyncIterable<AedesPacket>) {
      queued.push(packet);
    }
    for (const packet of queued) await this.outgoingClearMessageId(client, packet);
    await this.cleanIncoming(client);
    // Last, with the deadline: a crash half-way leaves it, and the next start finishes the job.
    await this.cleanSubscriptions(client);
  }
}

/** The aedes 2.0.0-beta.1 internals the enforcement uses. */
interface AedesInternals {
  closed: boolean;
  clients: Record<string, unknown>;
  expiringSessions: Map<string, unknown>;
  scheduleSessionExpiry(client: Client): void;
  _armIdTimer(map: Map<string, unknown>, id: string, ms: number, onFire: () => void): void;
}

interface ClientInternals {
  id: string;
  version?: number;
  clean?: boolean;
  sessionExpiryInterval?: number;
}

/**
 * Stores and enforces the deadlines of `aedes`' MQTT 5 sessions: ends the restored sessions
 * already past theirs, arms aedes' timer for the others, and from now on stores a deadline at
 * each close of an expiring session. Resolves once the expired sessions are deleted (and their
 * deletes committed). Write failures go to `onError` (the session then keeps its old deadline).
 */
export async function enforceStoredSessionExpiry(
  aedes: Aedes,
  persistence: SessionExpiryPersistence,
  onError: (err: unknown) => void,
): Promise<void> {
  const a = aedes as unknown as AedesInternals;
  const end = (id: string): void => {
    persistence.endSession(id).catch(onError);
  };
  const now = Date.now();
  for (const [id, at] of [...persistence.deadlines]) {
    if (at <= now) await persistence.endSession(id);
    else a._armIdTimer(a.expiringSessions, id, at - now, () => end(id));
  }

  const schedule = a.scheduleSessionExpiry.bind(a);
  a.scheduleSessionExpiry = (client) => {
    const c = client as unknown as ClientInternals;
    schedule(client);
    const interval = c.sessionExpiryInterval ?? 0;
    if (c.version !== 5 || c.clean !== false || interval === 0 || interval >= NEVER) return;
    // aedes keeps the session unless its pending-sessions cap wiped it; when stopping it
    // arms nothing, yet the connection closed now all the same.
    if (!a.closed && !a.expiringSessions.has(c.id)) return;
    const deadline = { topic: EXPIRY_FILTER, qos: 0, expiresAt: Date.now() + interval * 1000 };
    persistence.addSubscriptions(client, [deadline as Subscription]).catch(onError);
  };
  aedes.on('client', (client) => {
    if (persistence.deadlines.has(client.id)) {
      persistence.removeSubscriptions(client, [EXPIRY_FILTER]).catch(onError);
    }
  });
}
