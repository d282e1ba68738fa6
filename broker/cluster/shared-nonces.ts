/**
 * Cluster-wide replay protection of manager proofs (`spec/protocol-admin.md` §6.3 step 4,
 * §6.4 and its note (c); docs/cluster.md "Admin state in a cluster").
 *
 * After a proof verified locally (and its nonce was claimed in the node's own store), the
 * nonce is claimed in Redis with `SET <prefix>:nonce:<nonce> 1 NX PX 600000` (10 min = 2 × the
 * ±5 min skew window), so a proof used on one node is refused on every other node.
 *
 * - Claim won → `'claimed'`; key already there → `'used'` (the caller answers
 *   401 "Manager proof nonce was already used").
 * - Redis down, erroring or slower than `timeoutMs` → `'unavailable'`. The caller refuses the
 *   proof (`cluster.nonce_fail_open: false`, our default: replay protection matters more than
 *   management while Redis is out) or allows it on the node's own replay protection (`true`,
 *   the reference's behaviour); both cases are logged here (warn, at most once per 10 s).
 *
 * The node's own nonce store (the SQLite auth store when active, else memory) stays in front:
 * the verifier claims there first, so no node accepts a proof it (or its persistent store) has
 * seen, whatever Redis forgot. And each time the command link becomes ready (start-up, and
 * every reconnect: Redis restarted empty, or failed over to a replica that missed claims), the
 * node gives its live local claims back to Redis (`SET … NX PX <remaining>`), so a proof used on
 * this node before the outage is refused again on the others once that write landed.
 * Residual gap (docs/cluster.md): a proof replayed on another node in the moment between Redis
 * coming back and this node's restore, or used on a node that is itself down at that time.
 */
import type { NonceStore } from '../auth/nonce-store';
import type { Logger } from '../logging/logger';
import type { RedisLinks } from './redis-links';

/** PX of a claimed nonce (ms): 2 × the proof window, as the reference. */
export const CLUSTER_NONCE_TTL_MS = 600_000;
/** Longest wait (ms) for the claim before Redis counts as unavailable. */
export const NONCE_CLAIM_TIMEOUT_MS = 2_000;

export type NonceClaim = 'claimed' | 'used' | 'unavailable';

/** What the proof verifier needs (an optional part of its context). */
export interface ClusterNonceClaimer {
  /** Whether a proof may pass when Redis cannot be asked (`cluster.nonce_fail_open`). */
  readonly failOpen: boolean;
  /** Claims `nonce` cluster-wide. Never rejects. */
  claim(nonce: string): Promise<NonceClaim>;
}

/** How many restored claims go in one pipeline. */
const RESTORE_CHUNK = 500;

export class SharedNonces implements ClusterNonceClaimer {
  private lastWarn = 0;
  private restoring: Promise<void> = Promise.resolve();

  /**
   * @param local the node's own nonce store; its live claims are given back to Redis whenever
   *   the command link becomes ready (see the file comment). Without `live`, nothing is restored.
   */
  constructor(
    private readonly prefix: string,
    private readonly links: RedisLinks,
    readonly failOpen: boolean,
    private readonly logger: Logger,
    private readonly local?: Pick<NonceStore, 'live'>,
    private readonly timeoutMs = NONCE_CLAIM_TIMEOUT_MS,
  ) {
    if (local?.live) {
      const restore = () => {
        this.restoring = this.restoring.then(() => this.restore());
      };
      links.command.on('ready', restore);
      if (links.command.status === 'ready') restore();
    }
  }

  /** Resolves when the last restore of local claims into Redis finished (tests, shutdown). */
  restored(): Promise<void> {
    return this.restoring;
  }

  /** Writes the local live claims back to Redis (`NX`: a claim there is never shortened). */
  private async restore(): Promise<void> {
    const now = Date.now();
    let entries: Array<[string, number]>;
    try {
      entries = this.local?.live?.(now) ?? [];
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'local nonces not readable for redis');
      return;
    }
    let restored = 0;
    for (let i = 0; i < entries.length; i += RESTORE_CHUNK) {
      if (this.links.command.status !== 'ready') return;
      const pipeline = this.links.command.pipeline();
      for (const [nonce, expiresAt] of entries.slice(i, i + RESTORE_CHUNK)) {
        const px = Math.min(CLUSTER_NONCE_TTL_MS, Math.trunc(expiresAt - now));
        if (px > 0) pipeline.set(`${this.prefix}:nonce:${nonce}`, '1', 'PX', px, 'NX');
      }
      const done = await this.within(pipeline.exec());
      if (done === 'timeout' || done instanceof Error) {
        const reason = done === 'timeout' ? 'timeout' : done.message;
        this.logger.warn({ reason, restored }, 'claimed nonces not restored to redis');
        return;
      }
      restored += pipeline.length;
    }
    if (restored > 0) {
      this.logger.info({ restored }, 'claimed manager-proof nonces restored to redis');
    }
  }

  /** `p`, or `'timeout'` after `timeoutMs`, or the error it rejected with. */
  private async within<T>(p: Promise<T>): Promise<T | 'timeout' | Error> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
        }),
      ]);
    } catch (err) {
      return err as Error;
    } finally {
      clearTimeout(timer);
    }
  }

  async claim(nonce: string): Promise<NonceClaim> {
    // The command link is what matters here (the subscriber may still be reconnecting).
    if (this.links.command.status !== 'ready') return this.unavailable('redis down');
    let timer: NodeJS.Timeout | undefined;
    try {
      const reply = await Promise.race([
        this.links.command.set(
          `${this.prefix}:nonce:${nonce}`,
          '1',
          'PX',
          CLUSTER_NONCE_TTL_MS,
          'NX',
        ),
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
        }),
      ]);
      if (reply === 'timeout') return this.unavailable('timeout');
      return reply === 'OK' ? 'claimed' : 'used';
    } catch (err) {
      return this.unavailable((err as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  private unavailable(why: string): NonceClaim {
    const now = Date.now();
    if (now - this.lastWarn >= 10_000) {
      this.lastWarn = now;
      this.logger.warn(
        { reason: why, nonce_fail_open: this.failOpen },
        this.failOpen
          ? 'cluster nonce check unavailable: proof accepted on local replay protection only (nonce_fail_open)'
          : 'cluster nonce check unavailable: manager proof refused (cluster.nonce_fail_open is false)',
      );
    }
    return 'unavailable';
  }
}
