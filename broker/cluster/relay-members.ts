/**
 * Who the streams relay writes to, and keeping their inboxes bounded (docs/cluster.md "What is
 * relayed").
 *
 * Membership is not liveness: a node that is down (crashed, paused, being deployed) stays a
 * member, so its peers go on filling its inbox (trimmed by age, so what it misses is counted
 * exactly when it returns) and it catches up when it returns. Each node writes `{last_seen}`
 * (Redis server time, ms) under its id in the hash `<prefix>:members` once per cycle and
 * announces its joining on `<prefix>:members:changed`. A member not seen for `expiryMs`
 * (default 24 h: a node taken out of service) is dropped by whichever node notices; what is
 * produced after that is not written for it, and it cannot count what it missed then.
 *
 * Each cycle also trims inboxes — a node its own, and those of members not seen for three
 * cycles (down nodes, whose inboxes fill meanwhile): entries older than `retentionMs` (`XTRIM MINID`,
 * on the Redis clock, so node clocks do not matter) and, when `MEMORY USAGE` estimates the
 * stream above `retentionBytes`, the oldest until it fits. Times and ids use Redis's clock.
 */
import type { Logger } from '../logging/logger';
import type { RedisLinks } from './redis-links';

/** The inbox stream of `nodeId` under `prefix`. */
export function inboxKey(prefix: string, nodeId: string): string {
  return `${prefix}:inbox:${nodeId}`;
}

export interface RelayMembersOptions {
  nodeId: string;
  prefix: string;
  /** How long an unread entry is kept (ms). */
  retentionMs: number;
  /** How long an absent member stays one (ms). */
  expiryMs: number;
  /** Estimated inbox size past which the oldest entries are trimmed (bytes). */
  retentionBytes: number;
  /** Cycle period (ms): the cluster heartbeat, at most 5 s. */
  cycleMs: number;
  /** Called with each member dropped for absence (to forget its interest). */
  onDropped?: (nodeId: string) => void;
  /** Called at the end of each cycle that reached Redis (the inbox figures). */
  afterCycle?: () => Promise<void>;
}

export class RelayMembers {
  private readonly key: string;
  private readonly channel: string;
  private peers: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private cycling: Promise<void> | null = null;

  constructor(
    private readonly options: RelayMembersOptions,
    private readonly links: RedisLinks,
    private readonly logger: Logger,
  ) {
    this.key = `${options.prefix}:members`;
    this.channel = `${options.prefix}:members:changed`;
  }

  /** The other members, as of the last cycle or join notice. */
  others(): readonly string[] {
    return this.peers;
  }

  /** Joins (now if Redis is up) and starts the cycle. */
  start(): void {
    this.links.listen(this.channel, (text) => {
      if (text !== this.options.nodeId && !this.peers.includes(text) && /^[\w.:-]+$/.test(text)) {
        this.peers = [...this.peers, text];
      }
    });
    void this.cycle(true);
    this.timer = setInterval(() => void this.cycle(false), this.options.cycleMs);
    this.timer.unref();
  }

  /** Stops the cycle. The membership stays: a restarting node is still owed its messages. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.cycling;
  }

  /** One cycle (joins, reads the members, drops the absent, trims the inboxes); never throws. */
  cycle(announce = false): Promise<void> {
    this.cycling ??= this.run(announce).finally(() => {
      this.cycling = null;
    });
    return this.cycling;
  }

  private async run(announce: boolean): Promise<void> {
    if (!this.links.up) return;
    const redis = this.links.command;
    const { nodeId, expiryMs } = this.options;
    try {
      const [seconds, micros] = await redis.time();
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      await redis.hset(this.key, nodeId, JSON.stringify({ last_seen: now }));
      if (announce) await redis.publish(this.channel, nodeId);
      const all = await redis.hgetall(this.key);
      const peers: string[] = [];
      const gone: string[] = [];
      // A live member trims its own inbox; the others trim the inboxes of members that are
      // not (missed three cycles), so each inbox is trimmed about once per cycle.
      const absent: string[] = [];
      for (const [id, text] of Object.entries(all)) {
        if (id === nodeId) continue;
        const seen = lastSeen(text);
        if (seen === null || now - seen > expiryMs) gone.push(id);
        else peers.push(id);
        if (seen !== null && now - seen <= expiryMs && now - seen > 3 * this.options.cycleMs) {
          absent.push(id);
        }
      }
      if (gone.length > 0) {
        await redis.hdel(this.key, ...gone);
        this.logger.warn(
          { nodes: gone, member_expiry_ms: expiryMs },
          'cluster members dropped: not seen for longer than cluster.member_expiry_ms',
        );
        for (const id of gone) this.options.onDropped?.(id);
      }
      this.peers = peers.sort();
      for (const id of [nodeId, ...absent]) await this.trim(id, now);
      await this.options.afterCycle?.();
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'cluster membership cycle failed');
    }
  }

  private async trim(id: string, now: number): Promise<void> {
    const redis = this.links.command;
    const inbox = inboxKey(this.options.prefix, id);
    // Exact, not `~`: an approximate trim keeps whole stream nodes (100 entries), so a quiet
    // inbox would keep old entries past the retention.
    await redis.xtrim(inbox, 'MINID', `${now - this.options.retentionMs}-0`);
    const bytes = await redis.memory('USAGE', inbox);
    if (typeof bytes !== 'number' || bytes <= this.options.retentionBytes) return;
    const length = await redis.xlen(inbox);
    const keep = Math.floor((length * this.options.retentionBytes) / bytes);
    await redis.xtrim(inbox, 'MAXLEN', '~', keep);
    this.logger.warn(
      { node: id, bytes, retention_bytes: this.options.retentionBytes, kept: keep },
      'cluster inbox over its byte retention: oldest entries trimmed',
    );
  }
}

function lastSeen(text: string): number | null {
  try {
    const value = (JSON.parse(text) as { last_seen?: unknown }).last_seen;
    return typeof value === 'number' ? value : null;
  } catch {
    return null;
  }
}
