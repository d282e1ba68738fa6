/**
 * Routes the wrappers peers relay (`spec/protocol-core.md` §17, wire form in `relay-wire.ts`),
 * for both relays (`MessageRelay` on the pub/sub channel, `StreamRelay` on the inboxes): parses
 * one, routes it in relay mode, or says which stored large message it refers to; fetches those
 * (only under this cluster's `<prefix>:blob:`), and counts and logs (once per 10 s) what is
 * invalid.
 */
import type { StoreOutcome } from '../delivery/delivery';
import type { Logger } from '../logging/logger';
import type { ProducedMessage } from '../routing/produced-message';
import type { GroupArbiter, Router } from '../routing/router';
import type { ClusterMetrics } from './cluster-metrics';
import type { RedisLinks } from './redis-links';
import { parseRelayed } from './relay-wire';

/**
 * The group arbiter of both relays: among the nodes with members of a group the origin did not
 * serve, the first to claim `<prefix>:group:<origin>:<seq>:<realm>:<group>` (SET NX, 60 s)
 * serves it. Redis errors count as won: a duplicate rather than a lost message (at least once).
 */
export function groupArbiter(prefix: string, nodeId: string, links: RedisLinks): GroupArbiter {
  return async (realm, group, msg) => {
    const key = `${prefix}:group:${msg.relayedFrom}:${msg.relaySeq}:${realm}:${group}`;
    try {
      return (await links.command.set(key, nodeId, 'PX', 60_000, 'NX')) === 'OK';
    } catch {
      return true;
    }
  };
}

/**
 * Counts a relay write's outcome in `metrics`, as `messages` messages (a batch's writes either
 * all succeeded or are all counted failed); a failure is logged at debug level.
 */
export function countRelayed(
  sent: Promise<unknown>,
  metrics: ClusterMetrics,
  logger: Logger,
  messages = 1,
): void {
  sent.then(
    () => {
      metrics.relayed.sent += messages;
    },
    (err: unknown) => {
      metrics.relayed.failed += messages;
      logger.debug({ err: (err as Error).message }, 'message not relayed');
    },
  );
}

/** What `accept` did: routed (with the durable writes it caused), a blob to fetch, or nothing. */
export type Accepted = { routed: Promise<StoreOutcome>[] } | { blob: string } | null;

export class RelayedRouter {
  private lastInvalidLog = 0;

  constructor(
    private readonly nodeId: string,
    private readonly prefix: string,
    /** Where invalid input came from, for the log (`<prefix>:messages`, an inbox). */
    private readonly source: string,
    private readonly links: RedisLinks,
    private readonly router: Router,
    private readonly metrics: ClusterMetrics,
    private readonly logger: Logger,
    /** Sees each peer's message before it is routed (interest positions). */
    private readonly received: (msg: ProducedMessage) => void = () => undefined,
  ) {}

  /**
   * Routes one wrapper, or returns the blob key it refers to. A fetched wrapper (`fetched`)
   * must carry its payload: a reference to another blob is invalid. This node's own wrappers
   * are ignored.
   */
  accept(text: string, fetched = false): Accepted {
    const msg = parseRelayed(this.nodeId, text);
    if (msg === 'own') return null;
    if (msg === null || (fetched && 'blob' in msg)) {
      this.invalid(text.length, 'invalid cluster relay message ignored');
      return null;
    }
    if ('blob' in msg) return { blob: msg.blob };
    this.metrics.received.routed += 1;
    this.received(msg);
    try {
      return { routed: this.router.route(msg) };
    } catch (err) {
      this.logger.error({ err, realm: msg.realm }, 'relayed message not routed');
      return null;
    }
  }

  /** The stored wrapper at `key`, or null (expired, unreachable, or outside the prefix). */
  async fetch(key: string): Promise<string | null> {
    // Only this cluster's blob keys: a wrapper cannot make a node read other keys.
    if (!key.startsWith(`${this.prefix}:blob:`)) {
      this.invalid(key.length, 'relayed blob key outside the cluster prefix ignored');
      return null;
    }
    try {
      const text = await this.links.command.get(key);
      if (text === null) this.logger.warn({ key }, 'large relayed message expired before fetch');
      return text;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, key }, 'large relayed message not fetched');
      return null;
    }
  }

  /** Counts an invalid wrapper; logs at most once per 10 s. */
  invalid(bytes: number, what: string): void {
    this.metrics.received.invalid += 1;
    const now = Date.now();
    if (now - this.lastInvalidLog >= 10_000) {
      this.lastInvalidLog = now;
      this.logger.warn(
        { source: this.source, bytes, invalid: this.metrics.received.invalid },
        what,
      );
    }
  }
}
