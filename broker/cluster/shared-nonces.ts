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
 * - Redis down, erroring or slower than `timeoutMs` → `'unavailable'`. The caller allows the
 *   proof when `cluster.nonce_fail_open` is true (the reference's behaviour, the default) and
 *   refuses it otherwise; both cases are logged here (warn, at most once per 10 s).
 */
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

export class SharedNonces implements ClusterNonceClaimer {
  private lastWarn = 0;

  constructor(
    private readonly prefix: string,
    private readonly links: RedisLinks,
    readonly failOpen: boolean,
    private readonly logger: Logger,
    private readonly timeoutMs = NONCE_CLAIM_TIMEOUT_MS,
  ) {}

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
