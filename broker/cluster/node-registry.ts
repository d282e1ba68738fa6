/**
 * Which nodes make up the cluster: every node writes a heartbeat into the Redis hash
 * `<prefix>:nodes` (field = node id, value = JSON `{node_id, started_at, last_seen, version}`,
 * epoch ms) every `heartbeatMs`, reads the others back, and removes its field on close. A node
 * is alive while its heartbeat changed less than 3 × `heartbeatMs` ago, measured on the
 * reader's clock (so clock skew between nodes does not matter); fields unchanged for
 * 20 × `heartbeatMs` (a node killed without closing) are deleted by whoever sees them.
 */
import type { Logger } from '../logging/logger';
import type { RedisLinks } from './redis-links';

/** One node as `GET /api/stats` (`cluster.nodes`) reports it. */
export interface ClusterNode {
  node_id: string;
  /** Epoch ms. */
  started_at: number;
  /** Epoch ms, on the answering node's clock, when its heartbeat was last seen to change. */
  last_seen: number;
  version: string;
  /** True for the node answering. */
  self: boolean;
}

export class NodeRegistry {
  private readonly key: string;
  private timer: NodeJS.Timeout | null = null;
  private known: ClusterNode[] = [];
  /** Each node's last heartbeat value and when this node saw it change (its own clock). */
  private observed = new Map<string, { beat: number; at: number }>();
  private readonly startedAt = Date.now();

  constructor(
    private readonly nodeId: string,
    prefix: string,
    private readonly version: string,
    private readonly heartbeatMs: number,
    private readonly links: RedisLinks,
    private readonly logger: Logger,
  ) {
    this.key = `${prefix}:nodes`;
  }

  start(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
  }

  /** Alive nodes as of the last heartbeat, this one first (only this one while Redis is down). */
  nodes(): ClusterNode[] {
    const self = this.selfEntry(Date.now());
    if (!this.links.up) return [self];
    return [self, ...this.known.filter((n) => n.node_id !== this.nodeId)];
  }

  /** Stops the heartbeat and removes this node's field (best effort). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.links.up) return;
    await this.links.command.hdel(this.key, this.nodeId).catch(() => undefined);
  }

  private selfEntry(now: number): ClusterNode {
    return {
      node_id: this.nodeId,
      started_at: this.startedAt,
      last_seen: now,
      version: this.version,
      self: true,
    };
  }

  /** Writes this node's heartbeat, then reads, filters and prunes the others. */
  async beat(): Promise<void> {
    if (!this.links.up) return;
    const now = Date.now();
    const { self: _self, ...entry } = this.selfEntry(now);
    try {
      await this.links.command.hset(this.key, this.nodeId, JSON.stringify(entry));
      const all = await this.links.command.hgetall(this.key);
      const alive: ClusterNode[] = [];
      const stale: string[] = [];
      const seen = new Map<string, { beat: number; at: number }>();
      for (const [id, text] of Object.entries(all)) {
        const node = parseNode(id, text);
        if (!node) {
          stale.push(id);
          continue;
        }
        // Ages on this node's clock: when the peer's heartbeat last changed here, so a peer
        // whose clock is off is neither kept alive nor dropped by the difference.
        const before = this.observed.get(id);
        const at = before && before.beat === node.last_seen ? before.at : now;
        seen.set(id, { beat: node.last_seen, at });
        const age = id === this.nodeId ? 0 : now - at;
        if (age <= 3 * this.heartbeatMs) {
          alive.push({
            ...node,
            last_seen: id === this.nodeId ? now : at,
            self: id === this.nodeId,
          });
        } else if (age > 20 * this.heartbeatMs) {
          stale.push(id);
        }
      }
      this.observed = seen;
      if (stale.length > 0) await this.links.command.hdel(this.key, ...stale);
      alive.sort((a, b) => a.started_at - b.started_at || a.node_id.localeCompare(b.node_id));
      this.known = alive;
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'cluster heartbeat failed');
    }
  }
}

function parseNode(id: string, text: string): Omit<ClusterNode, 'self'> | null {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v.last_seen !== 'number' || typeof v.started_at !== 'number') return null;
    return {
      node_id: id,
      started_at: v.started_at,
      last_seen: v.last_seen,
      version: typeof v.version === 'string' ? v.version : 'unknown',
    };
  } catch {
    return null;
  }
}
