/**
 * Authorization requests shared by the nodes of a cluster (`spec/protocol-admin.md` §7, §15;
 * docs/cluster.md "Admin state in a cluster").
 *
 * - `<prefix>:authreqs` holds one JSON array of every request of the cluster (raw
 *   `client_token` included, as the reference: Redis must be private). Unlike the reference's
 *   last-writer-wins, every change is a read-modify-write under `WATCH`/`MULTI` (retried on
 *   conflict), serialized per node, so two nodes never lose each other's requests or decide the
 *   same request twice. Expired entries (`expiresAt`, from `auth.request_ttl`, default 24 h)
 *   are pruned by every write; that is also what happens to the requests of a dead node.
 * - A request accepted on a node (validated, capped and superseded locally by
 *   `AuthorizationRequests`) is added with `add`; superseding is applied in the document too.
 * - `next` is the oldest pending request of the cluster by `created_at` (§7.2), `pending`
 *   finds one by id, `decide` claims the decision (pending → approved/rejected) atomically.
 * - A decision about another node's requester is published on `<prefix>:authreq:decided`
 *   (`announce`); the node holding the socket marks its local copy decided and sends
 *   `AUTHORIZATION_APPROVED`/`REJECTED` — for an approval only once it has adopted the settings
 *   revision that carries the new token, so the client can log in right away.
 * - Redis down: requests stay on their node (and are added to the document when Redis is
 *   back); `next`/`pending` fall back to the node's own requests.
 */
import type { z } from 'zod';
import type { AuthorizationRequest, AuthorizationRequests } from '../auth/authorization-requests';
import type { Logger } from '../logging/logger';
import type { BrokerSocket } from '../transport/socket-types';
import type { RedisLinks } from './redis-links';
import { Decided, byAge, insert, parseRequests } from './shared-request-document';

/** What the authorization handlers use when the node is clustered. */
export interface ClusterRequestBook {
  /** Adds a request accepted on this node. Never rejects (kept local while Redis is down). */
  add(request: AuthorizationRequest): Promise<void>;
  /** Oldest pending request of the cluster (by `created_at`), in `realm` when given. */
  next(realm: string | undefined): Promise<AuthorizationRequest | null>;
  /** Every pending request of the cluster, oldest first (`created_at`), in `realm` if given. */
  pendingList(realm: string | undefined): Promise<AuthorizationRequest[]>;
  /** The request `id` if pending anywhere in the cluster (a copy; superseded ones: null). */
  pending(id: unknown): Promise<AuthorizationRequest | null>;
  /**
   * Claims the decision; on success `request` is updated like `AuthorizationRequests.decide`.
   * @returns false when the request is no longer pending (decided elsewhere, superseded, gone).
   */
  decide(
    request: AuthorizationRequest,
    approved: boolean,
    role: string,
    reason: string | null,
    decidedAt: number,
  ): Promise<boolean>;
  /**
   * A returning requester (issue 22 item 1): request `id` of the cluster when `hash` is its
   * `client_token_hash` and it is pending or decided; a pending one is re-attached to
   * `socketId` on this node. Null otherwise, or while Redis is down.
   */
  resume(id: string, hash: string, socketId: string): Promise<AuthorizationRequest | null>;
  /** Tells the node holding the requester's socket. Never rejects. */
  announce(
    request: AuthorizationRequest,
    approved: boolean,
    role: string,
    reason: string | null,
  ): Promise<void>;
}

/**
 * Tells a requester its request was decided (`notifyRequester` of
 * handlers/authorization-handlers.ts, passed in by the composition root: cluster/ sits below
 * handlers/). `requester` is undefined when its socket is not connected here.
 */
export type RequesterNotifier = (
  requester: BrokerSocket | undefined,
  request: { request_id: string; realm: string },
  approved: boolean,
  role: string,
  reason: string | null,
) => void;

export interface SharedRequestsDeps {
  nodeId: string;
  prefix: string;
  links: RedisLinks;
  /** This node's registry (cap, superseding, validation; the fallback while Redis is down). */
  local: AuthorizationRequests;
  logger: Logger;
  /** This node's main-namespace socket `id`, if connected here. */
  socket(id: string): BrokerSocket | undefined;
  /** Sends the decision to a requester connected here. */
  notify: RequesterNotifier;
  /** Publishes pending settings and resolves with the revision now in force. */
  settingsRev(): Promise<number>;
  /** Resolves once this node has adopted settings revision `rev` (or after a timeout). */
  settingsAt(rev: number): Promise<void>;
  /** Decided/superseded lifetime (ms), as the local registry's. */
  ttlMs(): number;
}

export class SharedAuthRequests implements ClusterRequestBook {
  private readonly key: string;
  private readonly channel: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** Ids of local requests not yet in the shared document (added while Redis was down). */
  private readonly unsynced = new Set<string>();

  constructor(private readonly deps: SharedRequestsDeps) {
    this.key = `${deps.prefix}:authreqs`;
    this.channel = `${deps.prefix}:authreq:decided`;
  }

  /** Subscribes to decisions; pushes requests kept local when Redis comes back. */
  start(): void {
    this.deps.links.listen(this.channel, (text) => this.received(text));
    for (const link of [this.deps.links.command, this.deps.links.subscriber]) {
      link.on('ready', () => {
        if (this.unsynced.size > 0) void this.resync();
      });
    }
  }

  async add(request: AuthorizationRequest): Promise<void> {
    try {
      await this.mutate((list) => {
        insert(list, request);
        return true;
      });
    } catch (err) {
      this.unsynced.add(request.request_id);
      this.deps.logger.warn(
        { err: (err as Error).message, request_id: request.request_id },
        'authorization request kept on this node until the cluster redis is back',
      );
    }
  }

  async next(realm: string | undefined): Promise<AuthorizationRequest | null> {
    return (await this.pendingList(realm))[0] ?? null;
  }

  async pendingList(realm: string | undefined): Promise<AuthorizationRequest[]> {
    const local = this.deps.local.pendingList(realm);
    let list: AuthorizationRequest[];
    try {
      list = await this.read();
    } catch {
      return local;
    }
    const candidates = list.filter(
      (r) => r.status === 'pending' && (realm === undefined || r.realm === realm),
    );
    // This node's requests not yet in the document (made while Redis was down).
    for (const r of local) if (!list.some((s) => s.request_id === r.request_id)) candidates.push(r);
    return candidates.sort(byAge);
  }

  async pending(id: unknown): Promise<AuthorizationRequest | null> {
    if (typeof id !== 'string') return null;
    try {
      const found = (await this.read()).find((r) => r.request_id === id);
      if (found) return found.status === 'pending' ? found : null;
    } catch {
      // Redis unavailable: this node's own requests only.
    }
    return this.deps.local.pending(id);
  }

  async decide(
    request: AuthorizationRequest,
    approved: boolean,
    role: string,
    reason: string | null,
    decidedAt: number,
  ): Promise<boolean> {
    const apply = (r: AuthorizationRequest): void => {
      r.status = approved ? 'approved' : 'rejected';
      if (approved) r.role = role;
      r.decided_at = new Date(decidedAt).toISOString();
      r.decision_reason = reason;
      r.expiresAt = decidedAt + this.deps.ttlMs();
    };
    try {
      const won = await this.mutate((list) => {
        const stored = list.find((r) => r.request_id === request.request_id);
        if (!stored) return this.deps.local.pending(request.request_id) !== null;
        if (stored.status !== 'pending') return false;
        apply(stored);
        return true;
      });
      if (won) apply(request);
      return won;
    } catch {
      // Redis unavailable: only a request of this node can be decided (locally).
      const mine = this.deps.local.pending(request.request_id) !== null;
      if (mine) apply(request);
      return mine;
    }
  }

  async resume(id: string, hash: string, socketId: string): Promise<AuthorizationRequest | null> {
    return this.mutate((list) => {
      const r = list.find((s) => s.request_id === id);
      if (!r || r.status === 'superseded' || r.client_token_hash !== hash) return null;
      if (r.status === 'pending') {
        r.socket_id = socketId;
        r.node_id = this.deps.nodeId;
      }
      return { ...r };
    }).catch(() => null);
  }

  async announce(
    request: AuthorizationRequest,
    approved: boolean,
    role: string,
    reason: string | null,
  ): Promise<void> {
    try {
      const rev = approved ? await this.deps.settingsRev() : 0;
      const message: z.infer<typeof Decided> = {
        request_id: request.request_id,
        node_id: request.node_id,
        decided_by: this.deps.nodeId,
        socket_id: request.socket_id,
        realm: request.realm,
        role,
        approved,
        reason,
        decided_at: Date.now(),
        settings_rev: rev,
      };
      await this.deps.links.command.publish(this.channel, JSON.stringify(message));
    } catch (err) {
      this.deps.logger.warn(
        { err: (err as Error).message, request_id: request.request_id },
        'authorization decision not announced to the requester node',
      );
    }
  }

  /** Drops a disposed realm's requests from the document (best effort). */
  async dropRealm(realm: string): Promise<void> {
    await this.mutate((list) => {
      for (let i = list.length - 1; i >= 0; i--) if (list[i]!.realm === realm) list.splice(i, 1);
    }).catch(() => undefined);
  }

  private received(text: string): void {
    let msg: z.infer<typeof Decided>;
    try {
      msg = Decided.parse(JSON.parse(text));
    } catch {
      this.deps.logger.warn({ channel: this.channel }, 'invalid authorization decision ignored');
      return;
    }
    if (msg.node_id !== this.deps.nodeId || msg.decided_by === this.deps.nodeId) return;
    const local = this.deps.local.pending(msg.request_id);
    // A requester that came back here keeps its request local: the local copy has its socket.
    const socketId = local?.socket_id ?? msg.socket_id;
    if (local) this.deps.local.decide(local, msg.approved, msg.role, msg.reason, msg.decided_at);
    void this.deps.settingsAt(msg.approved ? msg.settings_rev : 0).then(() => {
      this.deps.notify(this.deps.socket(socketId), msg, msg.approved, msg.role, msg.reason);
    });
  }

  private async resync(): Promise<void> {
    const ids = [...this.unsynced];
    try {
      await this.mutate((list) => {
        for (const id of ids) {
          const r = this.deps.local.pending(id);
          if (r && !list.some((s) => s.request_id === id)) insert(list, r);
        }
      });
      for (const id of ids) this.unsynced.delete(id);
      this.deps.logger.info({ requests: ids.length }, 'local authorization requests shared');
    } catch {
      // Retried on the next reconnection.
    }
  }

  /** Whether commands can be sent (the subscriber may still be reconnecting). */
  private ready(): boolean {
    return this.deps.links.command.status === 'ready';
  }

  private async read(): Promise<AuthorizationRequest[]> {
    if (!this.ready()) throw new Error('cluster redis down');
    return parseRequests(await this.deps.links.command.get(this.key), Date.now());
  }

  /**
   * Read-modify-write of the document under WATCH (retried on conflict), one at a time per
   * node: WATCH is per connection, and the command connection is shared (no other module runs
   * MULTI/EXEC on it, which would drop the watch).
   * @throws when Redis is unavailable or the document stays contended.
   */
  private mutate<R>(change: (list: AuthorizationRequest[]) => R): Promise<R> {
    const run = async (): Promise<R> => {
      const cmd = this.deps.links.command;
      for (let attempt = 0; attempt < 20; attempt++) {
        if (!this.ready()) throw new Error('cluster redis down');
        await cmd.watch(this.key);
        let list: AuthorizationRequest[];
        let result: R;
        try {
          list = parseRequests(await cmd.get(this.key), Date.now());
          result = change(list);
        } catch (err) {
          await cmd.unwatch().catch(() => undefined);
          throw err;
        }
        const done = await cmd.multi().set(this.key, JSON.stringify(list)).exec();
        if (done !== null) return result;
      }
      throw new Error('authorization requests document too contended');
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
