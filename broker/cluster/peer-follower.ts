/**
 * Follows the peers' interest hashes (issue 21; the representation is described in
 * `interest-sync.ts`): reads a peer's hash when it is first needed, applies its change notices
 * in revision order, and reads the hash again on a gap, a new epoch, a `full` notice, a
 * revision that stays different at the periodic check, and after this node's subscriber link
 * was down (notices may have been lost).
 *
 * `known(node)` answers null — "send it everything" — whenever the peer's interest is not
 * known to be current: never read, being read, read empty (no hash), or the subscriber link
 * not following. A hash is read only after this node's `SUBSCRIBE` to the notice channel is
 * confirmed, so every change written after the read reaches this node as a notice; notices
 * that arrive during the read are held and applied after it, those at or below the read
 * revision being skipped.
 */
import type { Logger } from '../logging/logger';
import { PeerInterest } from './peer-interest';
import type { RedisLinks } from './redis-links';

/** A change notice of `<prefix>:interest:changed`. */
export interface InterestNotice {
  node_id: string;
  epoch: string;
  rev: number;
  /** Set when the hash was rewritten, or the delta was too large to carry. */
  full?: boolean;
  add?: [string, string][];
  del?: string[];
}

export interface PeerFollowerOptions {
  nodeId: string;
  channel: string;
  keyOf: (node: string) => string;
  links: RedisLinks;
  logger: Logger;
  /** Milliseconds before a peer without a readable hash is read again. */
  retryMs: number;
  stats: { reloads: number; applied: number; gaps: number };
}

interface PeerState {
  /** The last read (or updated) interest; trusted only while `fresh`. */
  interest: PeerInterest | null;
  fresh: boolean;
  /** Id of the read in flight (0: none); a newer read makes an older one's answer void. */
  loading: number;
  held: InterestNotice[];
  /** Epoch ms before which a peer without a hash is not read again. */
  retryAt: number;
  /** A revision seen at one check above the known one (read if still above at the next). */
  suspect: number | null;
  /** A position the peer vouched for (`vouch`) that is not applied here yet. */
  awaited: { epoch: string; rev: number } | null;
}

export class PeerFollower {
  private readonly peers = new Map<string, PeerState>();
  private following = false;
  /** Incremented at each follow/unfollow: reads started before are void. */
  private followSeq = 0;
  private nextLoad = 1;
  private lastInvalidLog = 0;
  private closed = false;

  constructor(private readonly opts: PeerFollowerOptions) {}

  /** The peer's interest when known to be current, else null (and a read is started). */
  known(node: string): PeerInterest | null {
    if (!this.following) return null;
    const peer = this.state(node);
    if (peer.fresh && this.reached(peer)) return peer.interest;
    if (peer.loading === 0 && Date.now() >= peer.retryAt) void this.load(node, peer);
    return null;
  }

  /** The revision of the peer's interest applied here, or null when not known current. */
  revision(node: string): number | null {
    const peer = this.peers.get(node);
    return this.following && peer?.fresh && this.reached(peer)
      ? (peer.interest?.rev ?? null)
      : null;
  }

  /**
   * The peer stamped a message it sent with its interest position (`epoch`, `rev`): until
   * that position is applied here the peer is sent everything, so a change the peer made
   * before sending a message is in force here before anything that message caused.
   */
  vouch(node: string, epoch: string, rev: number): void {
    const peer = this.state(node);
    const known = peer.interest;
    if (known !== null && known.epoch === epoch && known.rev >= rev) return;
    const awaited = peer.awaited;
    if (awaited === null || awaited.epoch !== epoch || awaited.rev < rev) {
      peer.awaited = { epoch, rev };
    }
    if (known !== null && known.epoch !== epoch && peer.loading === 0 && this.following) {
      void this.load(node, peer);
    }
  }

  /** Whether the peer's interest is at (or past) the position it vouched for. */
  private reached(peer: PeerState): boolean {
    const awaited = peer.awaited;
    if (awaited === null) return true;
    const known = peer.interest!;
    if (known.epoch !== awaited.epoch || known.rev < awaited.rev) return false;
    peer.awaited = null;
    return true;
  }

  /** The subscriber link is ready: confirm the subscription, then read every known peer. */
  follow(): void {
    const seq = ++this.followSeq;
    this.following = false;
    this.opts.links.subscriber.subscribe(this.opts.channel).then(
      () => {
        if (seq !== this.followSeq || this.closed) return;
        this.following = true;
        for (const [node, peer] of this.peers) {
          peer.fresh = false;
          void this.load(node, peer);
        }
      },
      (err: unknown) => {
        this.opts.logger.debug({ err: (err as Error).message }, 'interest channel not followed');
      },
    );
  }

  /** The subscriber link is down: notices may be lost from now on. */
  unfollow(): void {
    this.followSeq++;
    this.following = false;
  }

  /** The command link is back: peers that could not be read are read now. */
  reloadStale(): void {
    if (!this.following) return;
    for (const [node, peer] of this.peers) {
      if (!peer.fresh && peer.loading === 0) void this.load(node, peer);
    }
  }

  forget(node: string): void {
    this.peers.delete(node);
  }

  close(): void {
    this.closed = true;
    this.following = false;
    this.peers.clear();
  }

  /** A message of the notice channel. */
  notice(text: string): void {
    if (!this.following || this.closed) return;
    const notice = parseNotice(text);
    if (notice === null) {
      const now = Date.now();
      if (now - this.lastInvalidLog >= 10_000) {
        this.lastInvalidLog = now;
        this.opts.logger.warn({ bytes: text.length }, 'invalid cluster interest notice ignored');
      }
      return;
    }
    if (notice.node_id === this.opts.nodeId) return;
    this.handle(notice.node_id, this.state(notice.node_id), notice);
  }

  /** Periodic: compares each current peer's revision in Redis with the known one. */
  async check(): Promise<void> {
    if (!this.following) return;
    const now = Date.now();
    const checks: Promise<void>[] = [];
    for (const [node, peer] of this.peers) {
      if (peer.loading !== 0) continue;
      const interest = peer.fresh ? peer.interest : null;
      if (interest === null) {
        if (now >= peer.retryAt) void this.load(node, peer);
        continue;
      }
      const key = this.opts.keyOf(node);
      checks.push(
        this.opts.links.command.hmget(key, 'epoch', 'rev').then(
          ([epoch, revText]) => {
            if (this.peers.get(node) !== peer || !peer.fresh || peer.loading !== 0) return;
            const rev = Number(revText);
            if (epoch !== interest.epoch || !(rev >= interest.rev)) {
              void this.load(node, peer);
            } else if (rev > interest.rev) {
              // A notice may be on its way: read only if it is still missing next time.
              if (peer.suspect !== null && interest.rev < peer.suspect) void this.load(node, peer);
              else peer.suspect = rev;
            } else peer.suspect = null;
          },
          () => undefined,
        ),
      );
    }
    await Promise.all(checks);
  }

  private state(node: string): PeerState {
    let peer = this.peers.get(node);
    if (!peer) {
      peer = {
        interest: null,
        fresh: false,
        loading: 0,
        held: [],
        retryAt: 0,
        suspect: null,
        awaited: null,
      };
      this.peers.set(node, peer);
    }
    return peer;
  }

  private handle(node: string, peer: PeerState, n: InterestNotice): void {
    if (peer.loading !== 0) {
      peer.held.push(n);
      return;
    }
    const known = peer.fresh ? peer.interest : null;
    if (known === null || n.epoch !== known.epoch) {
      void this.load(node, peer, n);
      return;
    }
    if (n.rev <= known.rev) return;
    if (n.full || n.rev !== known.rev + 1 || !n.add || !n.del) {
      if (!n.full) this.opts.stats.gaps += 1;
      void this.load(node, peer, n);
      return;
    }
    for (const [field, value] of n.add) known.set(field, value);
    for (const field of n.del) known.unset(field);
    known.rev = n.rev;
    peer.suspect = null;
    this.opts.stats.applied += 1;
  }

  /** Reads the peer's whole hash; `first` is held and applied after it. Never rejects. */
  private async load(node: string, peer: PeerState, first?: InterestNotice): Promise<void> {
    const id = this.nextLoad++;
    const seq = this.followSeq;
    peer.loading = id;
    peer.fresh = false;
    peer.held = first ? [first] : [];
    this.opts.stats.reloads += 1;
    let hash: Record<string, string> | null = null;
    try {
      hash = await this.opts.links.command.hgetall(this.opts.keyOf(node));
    } catch {
      // Redis away: the peer stays unknown (a target of everything) and is read again later.
    }
    if (this.closed || this.peers.get(node) !== peer || peer.loading !== id) return;
    peer.loading = 0;
    if (seq !== this.followSeq) return;
    const interest = hash === null ? null : PeerInterest.fromHash(hash);
    peer.interest = interest;
    peer.fresh = interest !== null;
    peer.suspect = null;
    peer.retryAt = interest === null ? Date.now() + this.opts.retryMs : 0;
    const held = peer.held;
    peer.held = [];
    for (const n of held) this.handle(node, peer, n);
  }
}

function parseNotice(text: string): InterestNotice | null {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  if (typeof v.node_id !== 'string' || typeof v.epoch !== 'string') return null;
  if (typeof v.rev !== 'number' || !Number.isSafeInteger(v.rev)) return null;
  if (v.full === true) return { node_id: v.node_id, epoch: v.epoch, rev: v.rev, full: true };
  const add = v.add;
  const del = v.del;
  if (!Array.isArray(add) || !Array.isArray(del)) return null;
  for (const pair of add) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      return null;
    }
  }
  if (!del.every((f) => typeof f === 'string')) return null;
  return {
    node_id: v.node_id,
    epoch: v.epoch,
    rev: v.rev,
    add: add as [string, string][],
    del: del as string[],
  };
}
