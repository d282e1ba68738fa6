/**
 * Interest-based routing for the cluster (issue 21; docs/cluster.md, "Interest routing"): each
 * node publishes what its routing state wants (`local-interest.ts`), follows its peers'
 * (`peer-interest.ts`), and tells the relay which peers a message must be sent to (`targets`).
 *
 * Redis representation (fields in `interest-fields.ts`):
 * - hash `<prefix>:interest:<node>`: one field per interest, plus `epoch` (random id of the
 *   writing process) and `rev` (its revision, 1, 2, … per process);
 * - channel `<prefix>:interest:changed`: after each write, `{node_id, epoch, rev, add, del}`
 *   (`add`: `[field, value]` pairs, `del`: fields), or `{node_id, epoch, rev, full: true}` when
 *   the hash was rewritten or the change had more than `maxDeltaEntries` entries (peers then
 *   read the hash).
 * Each write is one Lua script (hash, revision and notice atomic). A delta applies only on top
 * of the revision it was computed from; when the hash is not there (Redis restarted empty, the
 * key deleted by a peer's `forget`), the script refuses and the node rewrites its whole hash.
 * The hash is also rewritten whenever the command link (re)connects.
 *
 * Peers apply deltas in revision order; a gap, another epoch, a `full` notice, a revision that
 * differs at the periodic check (`checkMs`), or this node's subscriber link having been down
 * makes it read the hash again (HGETALL). Until a peer's hash is read, and while it is being
 * re-read, the peer is a target of every message (fail safe: sent rather than lost). A peer
 * with no hash (an older node, or one whose Redis was wiped and which has not rewritten yet)
 * stays a target of everything; it is re-read at most every `checkMs`.
 *
 * Batching: changes are coalesced until the end of the current microtask, so thousands of
 * `SUBSCRIBE`s handled in one turn cost one script. `flush()` hands pending changes to Redis at
 * once: the relay calls it before sending a message to peers, so that a change made before a
 * message is ordered before it on the command link.
 *
 * The race guarantee: once a node has applied a peer's change, every message it routes
 * afterwards that the change matches is targeted at the peer. A change is handed to Redis by
 * the node that made it before it relays any later message, and at the latest at the end of
 * the turn in which it was made; peers apply it when the notice arrives (one Redis round trip).
 * For causality across links (a consumer subscribes on B, then tells a producer on A through a
 * message that B relays), the relay stamps each message with `stamp()` and the receiver calls
 * `vouched(origin, stamp)`: until the receiver has applied that position, the origin is a
 * target of every message.
 * `close()` leaves this node's hash in Redis: a restarting node's durable consumers are still
 * owed messages; `forget` (a peer pruned from the cluster) deletes a peer's hash.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../logging/logger';
import type { ProducedMessage } from '../routing/produced-message';
import type { RealmDirectory } from '../routing/realm-directory';
import type { Router } from '../routing/router';
import { EPOCH_FIELD, REV_FIELD } from './interest-fields';
import { LocalInterest } from './local-interest';
import { PeerFollower } from './peer-follower';
import { candidateKeys, type CandidateKeys, type PeerInterest } from './peer-interest';
import type { RedisLinks } from './redis-links';

export interface InterestSyncOptions {
  nodeId: string;
  /** Cluster key prefix (`cluster.prefix`). */
  prefix: string;
  links: RedisLinks;
  realms: RealmDirectory;
  router: Router;
  logger: Logger;
  /** Milliseconds between revision checks of this node's hash and its peers'; default 5000. */
  checkMs?: number;
  /** Deltas with more entries are announced as `full` (peers read the hash); default 1000. */
  maxDeltaEntries?: number;
}

/** A node's interest position: its process epoch and revision (see `stamp`). */
export interface InterestStamp {
  epoch: string;
  rev: number;
}

/** Counters, for metrics and tests. */
export interface InterestStats {
  /** Delta scripts sent, whole-hash rewrites sent, and writes that failed or were refused. */
  deltas: number;
  fulls: number;
  refused: number;
  /** Peer hashes read (HGETALL), notices applied, and gaps seen. */
  reloads: number;
  applied: number;
  gaps: number;
}

/** Applies a delta on top of the expected revision, or refuses (returns 0). */
const DELTA_SCRIPT = `
local key = KEYS[1]
if redis.call('HGET', key, '${EPOCH_FIELD}') ~= ARGV[2] or redis.call('HGET', key, '${REV_FIELD}') ~= ARGV[3] then
  return 0
end
local n = tonumber(ARGV[6])
local i = 7
for _ = 1, n do
  redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  i = i + 2
end
for j = i, #ARGV do redis.call('HDEL', key, ARGV[j]) end
redis.call('HSET', key, '${REV_FIELD}', ARGV[4])
redis.call('PUBLISH', ARGV[1], ARGV[5])
return 1`;

/** Replaces the whole hash (field/value pairs from ARGV[3]) and announces it. */
const FULL_SCRIPT = `
local key = KEYS[1]
redis.call('DEL', key)
for i = 3, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1`;

export class InterestSync {
  readonly stats: InterestStats = {
    deltas: 0,
    fulls: 0,
    refused: 0,
    reloads: 0,
    applied: 0,
    gaps: 0,
  };
  private readonly key: string;
  private readonly channel: string;
  private readonly epoch = randomBytes(6).toString('hex');
  private readonly local: LocalInterest;
  private readonly peers: PeerFollower;
  private readonly checkMs: number;
  private readonly maxDelta: number;
  /** The revision of the last write handed to Redis, and of the last whole-hash write. */
  private rev = 0;
  private lastFullRev = 0;
  /** The next write must rewrite the whole hash (a write failed or was refused). */
  private needFull = true;
  private scheduled = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly unhook: (() => void)[] = [];

  constructor(private readonly opts: InterestSyncOptions) {
    this.key = interestKey(opts.prefix, opts.nodeId);
    this.channel = `${opts.prefix}:interest:changed`;
    this.checkMs = opts.checkMs ?? 5_000;
    this.maxDelta = opts.maxDeltaEntries ?? 1_000;
    this.local = new LocalInterest(opts.realms, opts.router, this.schedule);
    this.peers = new PeerFollower({
      nodeId: opts.nodeId,
      channel: this.channel,
      keyOf: (node) => interestKey(opts.prefix, node),
      links: opts.links,
      logger: opts.logger,
      retryMs: this.checkMs,
      stats: this.stats,
    });
  }

  /** Publishes this node's interest, loads its peers' as they appear, and follows changes. */
  start(): void {
    if (this.closed || this.timer) return;
    this.local.attach();
    const { command, subscriber } = this.opts.links;
    const onCommandReady = (): void => {
      // Redis may have restarted empty: rewrite the hash; stale peers can be read again.
      this.needFull = true;
      this.flush();
      this.peers.reloadStale();
    };
    const onSubscriberReady = (): void => this.peers.follow();
    const onSubscriberClose = (): void => this.peers.unfollow();
    command.on('ready', onCommandReady);
    subscriber.on('ready', onSubscriberReady);
    subscriber.on('close', onSubscriberClose);
    this.unhook.push(
      () => command.off('ready', onCommandReady),
      () => subscriber.off('ready', onSubscriberReady),
      () => subscriber.off('close', onSubscriberClose),
    );
    this.opts.links.listen(this.channel, (text) => {
      if (!this.closed) this.peers.notice(text);
    });
    if (command.status === 'ready') this.flush();
    if (subscriber.status === 'ready') this.peers.follow();
    this.timer = setInterval(() => void this.check(), this.checkMs);
    this.timer.unref();
  }

  /** Stops publishing and following; this node's hash stays in Redis (see the module comment). */
  close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const off of this.unhook.splice(0)) off();
    this.local.detach();
    this.peers.close();
    return Promise.resolve();
  }

  /**
   * Of `candidates` (peer node ids), the ones `msg` must be sent to: those whose interest
   * matches it, and those whose interest is not known (never read, being re-read, or this
   * node's subscriber link was down since). Never throws; keeps the candidates' order.
   */
  targets(msg: ProducedMessage, candidates: readonly string[]): string[] {
    const out: string[] = [];
    let keys: CandidateKeys | null = null;
    for (const node of candidates) {
      if (node === this.opts.nodeId) continue;
      const interest: PeerInterest | null = this.peers.known(node);
      if (interest === null) {
        out.push(node);
        continue;
      }
      keys ??= candidateKeys(msg);
      if (interest.matches(msg, keys)) out.push(node);
    }
    return out;
  }

  /** Forgets a peer pruned from the cluster, and deletes its hash (best effort). */
  async forget(nodeId: string): Promise<void> {
    this.peers.forget(nodeId);
    if (nodeId === this.opts.nodeId || !this.opts.links.up) return;
    await this.opts.links.command.del(interestKey(this.opts.prefix, nodeId)).catch(() => undefined);
  }

  /** The revision of this node's last write (1 after the first; for tests and status). */
  get revision(): number {
    return this.rev;
  }

  /** The revision of `node`'s interest as applied here, or null when not known current. */
  peerRevision(node: string): number | null {
    return this.peers.revision(node);
  }

  /**
   * This node's interest position, after handing pending changes to Redis: the relay sends it
   * with each message (a few bytes), for `vouched` on the receiving node.
   */
  stamp(): InterestStamp {
    this.flush();
    return { epoch: this.epoch, rev: this.rev };
  }

  /**
   * `node` sent a message stamped `stamp`: until its interest at that position is applied
   * here, `targets` includes it (see the module comment). Cheap: call it for every message.
   */
  vouched(node: string, stamp: InterestStamp): void {
    if (node !== this.opts.nodeId && !this.closed) this.peers.vouch(node, stamp.epoch, stamp.rev);
  }

  /** What this node's routing state wants now (the fields of its hash, for tests). */
  interest(): Map<string, string> {
    return this.local.compute();
  }

  /**
   * Hands pending changes to Redis now (otherwise done at the end of the turn). Call it
   * before sending a message to peers (see the module comment). Never throws.
   */
  flush(): void {
    if (this.closed || !this.opts.links.up) return;
    if (this.needFull) {
      this.writeAll();
      return;
    }
    if (!this.local.pending) return;
    const { add, del } = this.local.take();
    if (add.length === 0 && del.length === 0) return;
    const prev = this.rev;
    const rev = ++this.rev;
    const large = add.length + del.length > this.maxDelta;
    const notice = JSON.stringify({
      node_id: this.opts.nodeId,
      epoch: this.epoch,
      rev,
      ...(large ? { full: true } : { add, del }),
    });
    this.stats.deltas += 1;
    this.opts.links.command
      .eval(
        DELTA_SCRIPT,
        1,
        this.key,
        this.channel,
        this.epoch,
        String(prev),
        String(rev),
        notice,
        String(add.length),
        ...add.flat(),
        ...del,
      )
      .then(
        (applied) => {
          if (applied !== 1) this.refused(rev, 'hash not at the expected revision');
        },
        (err: unknown) => this.refused(rev, (err as Error).message),
      );
  }

  private readonly schedule = (): void => {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.flush();
    });
  };

  /** A write of revision `rev` failed: rewrite the whole hash, unless a rewrite followed it. */
  private refused(rev: number, why: string): void {
    this.stats.refused += 1;
    if (this.lastFullRev > rev || this.closed) return;
    this.opts.logger.debug({ rev, err: why }, 'cluster interest write refused; rewriting');
    this.needFull = true;
    this.schedule();
  }

  private writeAll(): void {
    this.needFull = false;
    const all = this.local.takeAll();
    const rev = ++this.rev;
    this.lastFullRev = rev;
    const notice = JSON.stringify({
      node_id: this.opts.nodeId,
      epoch: this.epoch,
      rev,
      full: true,
    });
    const pairs: string[] = [EPOCH_FIELD, this.epoch, REV_FIELD, String(rev)];
    for (const [field, value] of all) pairs.push(field, value);
    this.stats.fulls += 1;
    this.opts.links.command.eval(FULL_SCRIPT, 1, this.key, this.channel, notice, ...pairs).then(
      () => undefined,
      (err: unknown) => {
        if (this.lastFullRev !== rev) return;
        // Done again when the command link is back (or at the next check).
        this.needFull = true;
        this.opts.logger.debug({ err: (err as Error).message }, 'cluster interest not written');
      },
    );
  }

  /** Periodic: this node's hash at the revision written, peers' at the revisions known. */
  private async check(): Promise<void> {
    if (this.closed || !this.opts.links.up) return;
    if (this.needFull) this.flush();
    const expected = this.rev;
    try {
      const [epoch, rev] = await this.opts.links.command.hmget(this.key, EPOCH_FIELD, REV_FIELD);
      // Only a write that is still the last one can be judged (later ones may be in flight).
      if (this.rev === expected && (epoch !== this.epoch || rev !== String(expected))) {
        this.refused(expected, 'hash changed or gone');
      }
    } catch {
      // Redis went away: the reconnection rewrites the hash.
    }
    await this.peers.check();
  }
}

/** The interest hash of `node`. */
export function interestKey(prefix: string, node: string): string {
  return `${prefix}:interest:${node}`;
}
