/**
 * The streams relay (`cluster.relay: "streams"`, the default; docs/cluster.md "What is
 * relayed"): every message this node routes is added (`XADD`) to the inbox stream of each
 * other member that wants it, and this node reads its own inbox in order from where it
 * stopped, so a node that was down, paused or cut off from Redis catches up on what its peers
 * produced meanwhile (within `retention_ms` / `retention_bytes`), and stores the copies its
 * offline durable consumers are owed.
 *
 * Wire: an inbox entry holds one or more fields `m`, each the §17 wrapper text of one message
 * (`relay-wire.ts`, the same JSON as on the pub/sub channel): what a node routes in one turn of
 * its event loop goes to each inbox as one entry (`inbox-batch.ts`), so a busy node adds and a
 * busy reader reads one entry per batch, not per message. A wrapper longer than
 * `inline_max_bytes` is stored once under `<prefix>:blob:<node>:<seq>` for `retention_ms` and
 * the inboxes get `{node_id, blob}`. Order: one connection adds a node's messages in routing
 * order, and each inbox is read in order.
 * Inboxes are capped at `MAX_INBOX_ENTRIES` on every add (approximate `MAXLEN`), besides the
 * age and byte trimming of `RelayMembers`.
 *
 * Which members want a message: `targets` (interest routing, when set), else all of them.
 * The reference's channel `<prefix>:messages` is still listened to, so reference nodes'
 * messages reach this node's clients (they do not read inboxes: see `relay: "pubsub"`).
 */
import type { Redis } from 'ioredis';
import type { StoreOutcome } from '../delivery/delivery';
import type { Logger } from '../logging/logger';
import type { ProducedMessage } from '../routing/produced-message';
import type { Router } from '../routing/router';
import type { ClusterMetrics } from './cluster-metrics';
import { appendToInbox } from './inbox-append';
import { InboxBatch } from './inbox-batch';
import { InboxReader } from './inbox-reader';
import { MessageRelay } from './message-relay';
import { HANDOVER_PREFIX, type QueueHandover } from './queue-handover';
import type { RedisLinks } from './redis-links';
import { RelayMembers, inboxKey } from './relay-members';
import { RelayedRouter, countRelayed, groupArbiter } from './relayed-router';
import { blobText, parseRelayed, relayText } from './relay-wire';

export interface StreamRelayOptions {
  nodeId: string;
  prefix: string;
  /** Seconds: the TTL sent for messages without one (this node's store default, §9.3). */
  defaultTtl: number;
  /** Wrappers longer than this (JSON text length) go by reference (`inline_max_bytes`). */
  inlineMaxBytes: number;
  retentionMs: number;
  retentionBytes: number;
  /** How long an absent member is still written to (ms). */
  memberExpiryMs: number;
  /** Membership and trimming period (ms). */
  cycleMs: number;
}

/**
 * Interest routing (`InterestSync`): which members want a message, this node's position to
 * stamp on what it sends, and what to do with a peer's stamp.
 */
export interface RelayInterest {
  targets(msg: ProducedMessage, members: readonly string[]): string[];
  stamp(): { epoch: string; rev: number };
  vouched(node: string, stamp: { epoch: string; rev: number }): void;
}

export class StreamRelay {
  /**
   * Sequence of this node's relayed messages (group claims are keyed by it). It starts from
   * the clock so a restarted node never reuses the claim keys of its previous run.
   */
  private seq = Date.now() * 1_000;
  private stop: (() => void) | null = null;
  private readonly members: RelayMembers;
  private readonly reader: InboxReader;
  private readonly receiver: RelayedRouter;
  /** What reference nodes publish on `<prefix>:messages` (listened to, never published to). */
  private readonly channel: MessageRelay;
  private interest: RelayInterest | null = null;
  private handover: QueueHandover | null = null;
  private readonly droppedListeners = new Set<(nodeId: string) => void>();
  /** What this turn of the event loop relayed, added to the inboxes at its end. */
  private readonly outbox = new InboxBatch(() => process.nextTick(this.flush));
  private outboxMessages = 0;
  private blobWrites: Promise<unknown>[] = [];

  constructor(
    private readonly options: StreamRelayOptions,
    private readonly links: RedisLinks,
    private readonly router: Router,
    private readonly metrics: ClusterMetrics,
    private readonly logger: Logger,
    /** The blocking connection the inbox is read on (closed with the relay). */
    readerLink: Redis,
  ) {
    const { nodeId, prefix } = options;
    const inbox = inboxKey(prefix, nodeId);
    const received = (msg: ProducedMessage): void => {
      if (msg.relayInterest && msg.relayedFrom) {
        this.interest?.vouched(msg.relayedFrom, msg.relayInterest);
      }
    };
    this.receiver = new RelayedRouter(
      nodeId,
      prefix,
      inbox,
      links,
      router,
      metrics,
      logger,
      received,
    );
    this.channel = new MessageRelay(
      nodeId,
      prefix,
      options.defaultTtl,
      links,
      router,
      metrics,
      logger,
      options.inlineMaxBytes,
    );
    this.members = new RelayMembers(
      {
        nodeId,
        prefix,
        retentionMs: options.retentionMs,
        expiryMs: Math.max(options.memberExpiryMs, options.retentionMs),
        retentionBytes: options.retentionBytes,
        cycleMs: options.cycleMs,
        onDropped: (id) => this.droppedListeners.forEach((listener) => listener(id)),
        // Each membership cycle also refreshes the inbox figures (missed, backlog).
        afterCycle: () => this.reader.check(),
      },
      links,
      logger,
    );
    this.reader = new InboxReader(
      { inbox, cursorKey: `${prefix}:cursor:${nodeId}` },
      readerLink,
      links.command,
      (text) => this.route(text),
      logger,
      (text) => this.dereference(text),
      () => links.releaseLink(readerLink),
    );
  }

  /** Sends each message only to the members that want it (else to every member). */
  setInterest(interest: RelayInterest): void {
    this.interest = interest;
  }

  /** Stores the copies other nodes hand over with a durable consumer (queue-handover.ts). */
  setHandover(handover: QueueHandover): void {
    this.handover = handover;
  }

  /** Calls `listener` with each member dropped for absence (its interest can go). */
  onMemberDropped(listener: (nodeId: string) => void): void {
    this.droppedListeners.add(listener);
  }

  /** Starts relaying this node's messages (call before routing any). */
  attach(): void {
    // Peers may have subscribers in any realm: never skip routing for lack of local ones.
    this.stop ??= this.router.addRelay(
      this.send,
      () => true,
      groupArbiter(this.options.prefix, this.options.nodeId, this.links),
    );
    // Reference nodes publish on the channel; their messages are routed as they come.
    this.channel.listen();
  }

  /** Joins the members and starts reading the inbox (after durable subscriptions are restored). */
  start(): void {
    this.members.start();
    this.reader.start();
  }

  /** Whether the inbox backlog found at start has been read and stored (`GET /ready`). */
  get caughtUp(): boolean {
    return this.reader.caughtUp;
  }

  /** `cluster.relay` of `/api/stats`. */
  status(): {
    mode: 'streams';
    backlog: number;
    missed: number;
    retention_ms: number;
    retention_bytes: number;
    members: string[];
  } {
    return {
      mode: 'streams',
      backlog: this.reader.backlog,
      missed: this.reader.missed,
      retention_ms: this.options.retentionMs,
      retention_bytes: this.options.retentionBytes,
      members: [this.options.nodeId, ...this.members.others()],
    };
  }

  async close(): Promise<void> {
    this.stop?.();
    this.stop = null;
    this.flush();
    await this.members.close();
    await this.reader.close();
  }

  private route(text: string): Promise<void> | null {
    if (text.startsWith(HANDOVER_PREFIX)) return this.handover?.receive(text) ?? null;
    const accepted = this.receiver.accept(text, true);
    if (!accepted || !('routed' in accepted) || accepted.routed.length === 0) return null;
    return Promise.allSettled(accepted.routed as Promise<StoreOutcome>[]).then(() => undefined);
  }

  private dereference(text: string): Promise<string | null> | null {
    // Blob wrappers are short: most entries are told apart without parsing.
    if (text.length > 1_024 || !text.includes('"blob":')) return null;
    const parsed = parseRelayed(this.options.nodeId, text);
    return parsed !== null && parsed !== 'own' && 'blob' in parsed
      ? this.receiver.fetch(parsed.blob)
      : null;
  }

  private readonly send = (msg: ProducedMessage): void => {
    const members = this.members.others();
    if (members.length === 0) return;
    if (!this.links.up) {
      // Nothing is queued in memory: a message routed while Redis is down stays on this node.
      this.metrics.relayed.failed += 1;
      return;
    }
    const targets = this.interest ? this.interest.targets(msg, members) : members;
    if (targets.length === 0) return;
    const seq = ++this.seq;
    let text: string;
    try {
      // Stamping first also hands this node's pending interest changes to Redis, ahead of
      // the message on the same connection (interest-sync.ts, "the race").
      const stamp = this.interest?.stamp();
      text = relayText(this.options.nodeId, msg, this.options.defaultTtl, seq, stamp);
    } catch (err) {
      this.metrics.relayed.failed += 1;
      this.logger.warn({ err, realm: msg.realm }, 'message not relayed: not serialisable');
      return;
    }
    if (text.length > this.options.inlineMaxBytes) {
      const key = `${this.options.prefix}:blob:${this.options.nodeId}:${seq}`;
      // One connection: the SET is applied before the XADD (at the flush) that names it.
      this.blobWrites.push(this.links.command.set(key, text, 'PX', this.options.retentionMs));
      text = blobText(this.options.nodeId, key);
    }
    for (const node of targets) this.outbox.add(inboxKey(this.options.prefix, node), text);
    this.outboxMessages += 1;
  };

  /** Adds what this turn of the event loop routed: one `XADD` per inbox (inbox-batch.ts). */
  private readonly flush = (): void => {
    const messages = this.outboxMessages;
    this.outboxMessages = 0;
    const sends: Promise<unknown>[] = this.blobWrites;
    this.blobWrites = [];
    const command = this.links.command;
    this.outbox.drain((inbox, messages, count) => {
      sends.push(appendToInbox(command, inbox, messages, count));
    });
    if (messages > 0) countRelayed(Promise.all(sends), this.metrics, this.logger, messages);
  };
}
