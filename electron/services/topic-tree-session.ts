/**
 * One running Topic tree: a consumer socket in a realm subscribed to `#` in topic mode (any
 * producer, no ACK, not durable: consumers are not affected), whose deliveries feed a
 * TopicTreeStats, seeded from the realm's retained messages, and a timer that pushes the changed
 * topics every `TOPIC_TREE_UPDATE_MS` (an update with no topics when nothing changed, so the page
 * sees the tree is alive).
 *
 * Source: `spec/protocol-core.md` §3.3 (SUBSCRIBE, topic mode), §8 (envelope), §11 (topics),
 * §14.2 (chunked deliveries); docs/management.md "Retained messages".
 */
import {
  ServerEvent,
  consumeEvent,
  ClientEvent,
  type DeliveryEnvelope,
} from '../../shared/protocol-events';
import {
  TOPIC_TREE_UPDATE_MS,
  type RetainedSeedState,
  type TopicDetail,
  type TopicTreeUpdate,
} from '../../shared/console-api-topics';
import type { RetainedEntry, RetainedList } from '../../shared/console-api-retained';
import type { ErrorInfo } from '../../shared/error-catalogue';
import type { RealmSocket } from './realm-access';
import { TapChunkJoiner } from './tap-chunk-joiner';
import { TAP_CONSUMER_PREFIX } from './tap-leftovers';
import { leaveBroker, preview, tapSubscription } from './tap-session';
import type { SubscriberCounter } from './topic-subscribers';
import { TopicTreeStats } from './topic-tree-stats';

/** Reads one page of retained messages (`listRetained` of the retained service). */
export type RetainedPager = (cursor: string | null) => Promise<RetainedList>;

export interface TopicTreeSessionOptions {
  treeId: string;
  connectionId: string;
  client: RealmSocket;
  emit: (update: TopicTreeUpdate) => void;
  /** Called once when the session ends, whatever the reason. */
  onEnd: () => void;
  /** The retained seed's pages; absent: no seed (`unsupported`). */
  retained?: RetainedPager;
  /** Removes the consumer from the broker once its socket is closed. Must not reject. */
  forget?: (consumer: string) => Promise<unknown>;
  /** Update period, ms. Default `TOPIC_TREE_UPDATE_MS`. */
  periodMs?: number;
  /** Topic cap (tests). */
  maxTopics?: number;
  /**
   * The broker's registrations in the tree's realm as a subscriber counter, or null when not
   * known (topic-subscribers.ts); read every `SUBSCRIBERS_EVERY` updates. Absent: never read.
   */
  subscribers?: () => Promise<SubscriberCounter | null>;
}

/** Subscriber counts are read once every this many updates (5 s at the default period). */
export const SUBSCRIBERS_EVERY = 5;

/** A retained entry as a history message: text as JSON text, bytes as base64 (`enc`). */
function retainedMessage(entry: RetainedEntry, at: number) {
  const cut = entry.truncated;
  if (entry.payloadEncoding === 'base64') {
    return {
      ...preview(entry.payload),
      enc: 'base64',
      value: undefined,
      truncated: cut,
      size: entry.sizeBytes,
    };
  }
  let value: unknown = entry.payload;
  try {
    value = JSON.parse(entry.payload);
  } catch {
    // Plain text: shown as a JSON string.
  }
  const shown = preview(value);
  return { ...shown, truncated: shown.truncated || cut, value, at };
}

export class TopicTreeSession {
  readonly consumer: string;
  private readonly subscribe: Record<string, unknown>;
  private readonly stats: TopicTreeStats;
  private readonly timer: NodeJS.Timeout;
  private readonly chunks: TapChunkJoiner;
  private readonly periodMs: number;
  private seq = 0;
  private first = true;
  private retained: RetainedSeedState;
  private retainedSeeded = 0;
  private ended = false;
  private counting = false;
  private ending: Promise<void> | null = null;

  constructor(private readonly options: TopicTreeSessionOptions) {
    this.periodMs = options.periodMs ?? TOPIC_TREE_UPDATE_MS;
    this.stats = new TopicTreeStats(options.maxTopics);
    // The tap's prefix, so a console killed mid-tree leaves nothing tap-leftovers.ts misses.
    this.consumer = `${TAP_CONSUMER_PREFIX}${options.treeId.slice(0, 12)}`;
    const { key, subscribe } = tapSubscription({ kind: 'topic', pattern: '#' }, this.consumer);
    this.subscribe = subscribe;
    const socket = options.client.socket;
    socket.on(consumeEvent(key), (envelope: DeliveryEnvelope) => this.arrive(envelope));
    this.chunks = new TapChunkJoiner(consumeEvent(key));
    socket.on(ServerEvent.CONSUME_CHUNK, (frame) => {
      const joined = this.chunks.add(frame);
      if (!joined) return;
      try {
        this.arrive(JSON.parse(joined.text) as DeliveryEnvelope);
      } catch {
        // Frames that do not join into JSON: not a topic message the tree can place.
      }
    });
    socket.on('disconnect', () => {
      if (!this.ended) {
        void this.end({
          code: 'SWB_ERR_BROKER_UNREACHABLE',
          message:
            'The broker closed the topic tree connection (stopped, restarted, or realm removed)',
        });
      }
    });
    socket.emit(ClientEvent.SUBSCRIBE, subscribe);
    this.retained = options.retained ? 'loading' : 'unsupported';
    if (options.retained) void this.seed(options.retained);
    this.timer = setInterval(() => this.send('running', null), this.periodMs);
  }

  /** One topic's detail, or null when the tree has not seen it. */
  detail(topic: string): TopicDetail | null {
    return this.stats.detail(this.options.treeId, topic);
  }

  /** Leaves the broker, sends the last update, removes the consumer (`forget`). */
  stop(): Promise<void> {
    return this.end(null);
  }

  private arrive(envelope: DeliveryEnvelope): void {
    if (this.ended) return;
    const raw = envelope as DeliveryEnvelope & { enc?: unknown };
    const topic = typeof envelope?.event === 'string' ? envelope.event : '';
    if (topic === '') return;
    this.stats.add({
      topic,
      at: Date.now(),
      from: typeof envelope.from === 'string' ? envelope.from : '',
      ...preview(envelope.message),
      ...(typeof raw.enc === 'string' ? { enc: raw.enc.slice(0, 32) } : {}),
      value: envelope.message,
    });
  }

  /** Reads every page of retained messages (until the topic cap) into the tree. */
  private async seed(pager: RetainedPager): Promise<void> {
    let cursor: string | null = null;
    try {
      do {
        const page: RetainedList = await pager(cursor);
        if (this.ended) return;
        if (page.state !== 'ok') {
          this.retained = page.state;
          return;
        }
        const at = page.fetchedAt;
        for (const entry of page.entries) {
          this.stats.seedRetained({
            topic: entry.topic,
            from: '',
            ...retainedMessage(entry, at),
            at,
          });
          this.retainedSeeded += 1;
        }
        cursor = page.nextCursor;
      } while (cursor !== null && this.stats.size < (this.options.maxTopics ?? Infinity));
      this.retained = 'ok';
    } catch {
      // A refused or failed read: the live traffic still builds the tree.
      this.retained = 'error';
    }
  }

  /** Reads the subscriber counts (one read at a time; a failed read keeps the last counts). */
  private async recount(read: () => Promise<SubscriberCounter | null>): Promise<void> {
    if (this.counting) return;
    this.counting = true;
    try {
      const counter = await read();
      if (!this.ended) this.stats.setSubscriberCounter(counter);
    } catch {
      // The registrations could not be read this time: the counts shown stay.
    } finally {
      this.counting = false;
    }
  }

  private send(state: TopicTreeUpdate['state'], error: ErrorInfo | null): void {
    if (state === 'running' && this.options.subscribers && this.seq % SUBSCRIBERS_EVERY === 0) {
      void this.recount(this.options.subscribers);
    }
    const changed = this.stats.flush(this.periodMs);
    const nodes = this.first ? this.stats.all() : changed;
    this.first = false;
    this.options.emit({
      treeId: this.options.treeId,
      connectionId: this.options.connectionId,
      seq: this.seq++,
      at: Date.now(),
      nodes,
      topics: this.stats.size,
      received: this.stats.received,
      ratePerSec: this.stats.ratePerSec,
      overflow: this.stats.overflow,
      retained: this.retained,
      retainedSeeded: this.retainedSeeded,
      state,
      error,
    });
  }

  private end(error: ErrorInfo | null): Promise<void> {
    this.ending ??= this.finish(error);
    return this.ending;
  }

  private async finish(error: ErrorInfo | null): Promise<void> {
    this.ended = true;
    clearInterval(this.timer);
    this.chunks.clear();
    await leaveBroker(this.options.client, this.subscribe, this.consumer, 2_000);
    this.send('stopped', error);
    this.options.onEnd();
    await this.options.forget?.(this.consumer);
  }
}
