/**
 * The cluster message relay: every message this node routes is published to its peers on
 * `<prefix>:messages`, and every message a peer publishes there is routed here in relay mode.
 *
 * Source: `spec/protocol-core.md` §17. Wire shape (kept for mixed clusters with reference
 * nodes): `{node_id, payload: {realm, event, message, producer, ttl, guaranteed, enc, to,
 * contentType, method, broadcast, group}}`, `method` = `"broadcast"` or null, `broadcast` =
 * `"group"` for a group broadcast. Note 17-A is fixed: `contentType` is passed on, so every
 * node builds the same envelope. Peers ignore their own wrappers, unparsable text and payloads
 * without `realm`/`event` (counted as `invalid`, logged once per 10 s at most).
 *
 * Relay mode (`ProducedMessage.relayedFrom`, see `Router`): a consumer group the origin
 * served is skipped; a group the origin has no member for is served by exactly one peer, the
 * first to claim it in Redis (the reference skips groups on peers, so such messages never
 * reached the group). Extensions `groups_served` and `seq` carry what that needs. Unlike the reference, a peer stores the copies of
 * offline consumers registered with it (durable subscriptions, guaranteed messages), as the
 * origin does for its own: a durable consumer of any node loses nothing produced elsewhere.
 */
import { z } from 'zod';
import type { Logger } from '../logging/logger';
import type { ProducedMessage } from '../routing/produced-message';
import type { Router } from '../routing/router';
import type { ClusterMetrics } from './cluster-metrics';
import type { RedisLinks } from './redis-links';

/** Largest realm/event/producer/group name a relayed payload may carry (characters). */
const NAME_MAX = 4_096;

const RelayedPayload = z.object({
  realm: z.string().max(NAME_MAX),
  event: z.string().min(1).max(NAME_MAX),
  message: z.unknown().optional(),
  producer: z.string().max(NAME_MAX).nullish(),
  ttl: z.number().nullish(),
  guaranteed: z.boolean().nullish(),
  enc: z.unknown().optional(),
  to: z.unknown().optional(),
  contentType: z.unknown().optional(),
  method: z.string().nullish(),
  broadcast: z.unknown().optional(),
  group: z.string().max(NAME_MAX).nullish(),
  /** Switchboard extension: the groups the origin served, `[realm, group]` pairs. */
  groups_served: z
    .array(z.tuple([z.string().max(NAME_MAX), z.string().max(NAME_MAX)]))
    .max(10_000)
    .optional(),
  /** Switchboard extension: the origin's sequence number of the message. */
  seq: z.number().int().nonnegative().optional(),
});

const RelayedWrapper = z.object({ node_id: z.string().min(1).max(128), payload: RelayedPayload });

/**
 * The relay wrapper of `msg` as JSON text (§17). `ttl` is the effective TTL in seconds (§9.3):
 * the message's, else `defaultTtl` (this node's store default); null = never expires.
 */
export function relayText(
  nodeId: string,
  msg: ProducedMessage,
  defaultTtl: number,
  seq?: number,
): string {
  return JSON.stringify({
    node_id: nodeId,
    payload: {
      realm: msg.realm,
      event: msg.event,
      message: msg.message,
      producer: msg.from,
      ttl: msg.ttl === undefined ? defaultTtl : msg.ttl,
      guaranteed: msg.guaranteed,
      enc: msg.enc ?? null,
      to: msg.to ?? null,
      contentType: msg.contentType ?? null,
      method: msg.broadcast === null ? null : 'broadcast',
      broadcast: msg.broadcast === 'group' ? 'group' : msg.broadcast === 'realm' ? true : null,
      group: msg.group,
      // Extensions (reference nodes ignore them): which groups still need a node (docs/cluster.md).
      groups_served: msg.groupsServed ?? [],
      seq,
    },
  });
}

/**
 * Parses a peer's wrapper into a message to route, or returns `'own'` (this node's), or
 * `null` (invalid). A missing `ttl` means this node's store default, null never expires.
 */
export function parseRelayed(nodeId: string, text: string): ProducedMessage | 'own' | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = RelayedWrapper.safeParse(raw);
  if (!parsed.success) return null;
  const { node_id: from, payload: p } = parsed.data;
  if (from === nodeId) return 'own';
  const broadcast =
    p.method === 'broadcast'
      ? p.broadcast === 'group' && typeof p.group === 'string' && p.group !== ''
        ? 'group'
        : 'realm'
      : null;
  const msg: ProducedMessage = {
    realm: p.realm,
    event: p.event,
    message: p.message,
    from: p.producer ?? 'ANONYMOUS',
    ttl: p.ttl === undefined ? undefined : p.ttl,
    guaranteed: p.guaranteed === true,
    broadcast,
    group: p.group ?? null,
    origin: 'cluster',
    relayedFrom: from,
  };
  if (p.enc !== null && p.enc !== undefined) msg.enc = p.enc;
  if (p.to !== null && p.to !== undefined) msg.to = p.to;
  if (p.contentType !== null && p.contentType !== undefined) msg.contentType = p.contentType;
  if (p.groups_served && p.seq !== undefined) {
    msg.groupsServed = p.groups_served;
    msg.relaySeq = p.seq;
  }
  return msg;
}

export class MessageRelay {
  private readonly channel: string;
  private lastInvalidLog = 0;
  /** Sequence number of this node's relayed messages (group claims are keyed by it). */
  private seq = 0;
  private stop: (() => void) | null = null;

  constructor(
    private readonly nodeId: string,
    private readonly prefix: string,
    /** Seconds: the TTL sent for messages without one (this node's store default, §9.3). */
    private readonly defaultTtl: number,
    private readonly links: RedisLinks,
    private readonly router: Router,
    private readonly metrics: ClusterMetrics,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}:messages`;
  }

  /** Subscribes to peers' messages and starts relaying this node's. */
  start(): void {
    this.links.listen(this.channel, this.receive);
    // Peers may have subscribers in any realm: never skip routing for lack of local ones.
    this.stop = this.router.addRelay(this.send, () => true, this.claimGroup);
  }

  close(): void {
    this.stop?.();
    this.stop = null;
  }

  private readonly send = (msg: ProducedMessage): void => {
    if (!this.links.up) {
      // No offline queue: a message routed while Redis is down reaches this node's clients only.
      this.metrics.relayed.failed += 1;
      return;
    }
    let text: string;
    try {
      text = relayText(this.nodeId, msg, this.defaultTtl, ++this.seq);
    } catch (err) {
      this.metrics.relayed.failed += 1;
      this.logger.warn({ err, realm: msg.realm }, 'message not relayed: not serialisable');
      return;
    }
    this.links.command.publish(this.channel, text).then(
      () => {
        this.metrics.relayed.sent += 1;
      },
      (err: unknown) => {
        this.metrics.relayed.failed += 1;
        this.logger.debug({ err: (err as Error).message }, 'message not relayed');
      },
    );
  };

  /**
   * Group arbiter: among the nodes with members of a group the origin did not serve, the first
   * to claim `<prefix>:group:<origin>:<seq>:<realm>:<group>` (SET NX, 60 s) serves it. Redis
   * errors count as won: a duplicate rather than a lost message (at-least-once).
   */
  private readonly claimGroup = async (
    realm: string,
    group: string,
    msg: ProducedMessage,
  ): Promise<boolean> => {
    const key = `${this.prefix}:group:${msg.relayedFrom}:${msg.relaySeq}:${realm}:${group}`;
    try {
      return (await this.links.command.set(key, this.nodeId, 'PX', 60_000, 'NX')) === 'OK';
    } catch {
      return true;
    }
  };

  private readonly receive = (text: string): void => {
    const msg = parseRelayed(this.nodeId, text);
    if (msg === 'own') return;
    if (msg === null) {
      this.metrics.received.invalid += 1;
      const now = Date.now();
      if (now - this.lastInvalidLog >= 10_000) {
        this.lastInvalidLog = now;
        this.logger.warn(
          { channel: this.channel, bytes: text.length, invalid: this.metrics.received.invalid },
          'invalid cluster relay message ignored',
        );
      }
      return;
    }
    this.metrics.received.routed += 1;
    try {
      this.router.route(msg);
    } catch (err) {
      this.logger.error({ err, realm: msg.realm }, 'relayed message not routed');
    }
  };
}
