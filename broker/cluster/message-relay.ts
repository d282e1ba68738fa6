/**
 * The cluster message relay: every message this node routes is published to its peers on
 * `<prefix>:messages`, and every message a peer publishes there is routed here in relay mode.
 *
 * Source: `spec/protocol-core.md` §17 (wire form in `relay-wire.ts`). Relay mode
 * (`ProducedMessage.relayedFrom`, see `Router`): a consumer group the origin served is skipped;
 * a group the origin has no member for is served by exactly one peer, the first to claim it in
 * Redis (the reference skips groups on peers, so such messages never reached the group).
 * Unlike the reference, a peer stores the copies of offline consumers registered with it
 * (durable subscriptions, guaranteed messages), as the origin does for its own: a durable
 * consumer of any node loses nothing produced elsewhere.
 *
 * Large messages: Redis disconnects a subscriber whose pending pub/sub output passes
 * `client-output-buffer-limit pubsub` (32 MiB at once, or 8 MiB for 60 s, by default), which
 * would cut every peer's link. A wrapper longer than `inlineMaxBytes` is therefore stored under
 * `<prefix>:blob:<node>:<seq>` for 60 s and published as `{node_id, blob: <key>}`; peers fetch
 * it, and hold the messages that follow it until it is routed, so order is kept.
 */
import type { Logger } from '../logging/logger';
import type { ProducedMessage } from '../routing/produced-message';
import type { Router } from '../routing/router';
import type { ClusterMetrics } from './cluster-metrics';
import type { RedisLinks } from './redis-links';
import { RelayedRouter, countRelayed, groupArbiter } from './relayed-router';
import { blobText, relayText } from './relay-wire';

/** How long a large message waits in Redis for the peers to fetch it (ms). */
const BLOB_TTL_MS = 60_000;
/** Messages held behind a large one being fetched; past it, the newest are dropped (counted). */
const MAX_HELD = 100_000;

export class MessageRelay {
  private readonly channel: string;
  private readonly receiver: RelayedRouter;
  /**
   * Sequence number of this node's relayed messages (group claims are keyed by it), from the
   * clock so a restarted node never reuses the claim keys of its previous run.
   */
  private seq = Date.now() * 1_000;
  private stop: (() => void) | null = null;
  /** Messages received while a large one is fetched (non-null only then), in order. */
  private held: string[] | null = null;

  constructor(
    private readonly nodeId: string,
    private readonly prefix: string,
    /** Seconds: the TTL sent for messages without one (this node's store default, §9.3). */
    private readonly defaultTtl: number,
    private readonly links: RedisLinks,
    private readonly router: Router,
    private readonly metrics: ClusterMetrics,
    private readonly logger: Logger,
    /** Wrappers longer than this (JSON text length) go by reference (`inline_max_bytes`). */
    private readonly inlineMaxBytes: number,
  ) {
    this.channel = `${prefix}:messages`;
    this.receiver = new RelayedRouter(nodeId, prefix, this.channel, links, router, metrics, logger);
  }

  /** Subscribes to peers' messages and starts relaying this node's. */
  start(): void {
    this.listen();
    // Peers may have subscribers in any realm: never skip routing for lack of local ones.
    this.stop = this.router.addRelay(
      this.send,
      () => true,
      groupArbiter(this.prefix, this.nodeId, this.links),
    );
  }

  /**
   * Routes what peers publish on the channel, without relaying this node's messages there
   * (the streams relay listens so for reference nodes).
   */
  listen(): void {
    this.links.listen(this.channel, this.receive);
  }

  close(): Promise<void> {
    this.stop?.();
    this.stop = null;
    return Promise.resolve();
  }

  private readonly send = (msg: ProducedMessage): void => {
    if (!this.links.up) {
      // No offline queue: a message routed while Redis is down reaches this node's clients only.
      this.metrics.relayed.failed += 1;
      return;
    }
    let text: string;
    const seq = ++this.seq;
    try {
      text = relayText(this.nodeId, msg, this.defaultTtl, seq);
    } catch (err) {
      this.metrics.relayed.failed += 1;
      this.logger.warn({ err, realm: msg.realm }, 'message not relayed: not serialisable');
      return;
    }
    const command = this.links.command;
    let sent: Promise<unknown>;
    if (text.length > this.inlineMaxBytes) {
      const key = `${this.prefix}:blob:${this.nodeId}:${seq}`;
      // One connection: the SET is applied before the PUBLISH that names it.
      sent = Promise.all([
        command.set(key, text, 'PX', BLOB_TTL_MS),
        command.publish(this.channel, blobText(this.nodeId, key)),
      ]);
    } else {
      sent = command.publish(this.channel, text);
    }
    countRelayed(sent, this.metrics, this.logger);
  };

  private readonly receive = (text: string): void => {
    if (this.held === null) {
      this.process(text);
      return;
    }
    if (this.held.length < MAX_HELD) this.held.push(text);
    else this.receiver.invalid(text.length, 'relayed message dropped: too many behind a large one');
  };

  /** Routes one wrapper, or starts fetching a large one (holding what follows). */
  private process(text: string, fetched = false): void {
    const accepted = this.receiver.accept(text, fetched);
    if (accepted === null || !('blob' in accepted)) return;
    this.held = [];
    void this.receiver.fetch(accepted.blob).then((stored) => {
      if (stored !== null) this.process(stored, true);
      this.release();
    });
  }

  /** Processes the held messages in order, stopping again at the next large one. */
  private release(): void {
    const held = this.held ?? [];
    this.held = null;
    while (held.length > 0 && this.held === null) this.process(held.shift()!);
    // Another large one started fetching: what is left waits behind it.
    if (this.held !== null) (this.held as string[]).unshift(...held);
  }
}
