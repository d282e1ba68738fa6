/**
 * The Topic tree's aggregation (console-api-topics.ts), kept in the console host so the page
 * only ever gets changed topics once a second, however fast the realm runs: per topic a count,
 * the messages of the current period (its rate), the last value, a history ring and numeric
 * series rings. Everything is bounded: `maxTopics` topics (messages on further topics only count
 * in `overflow`), `TOPIC_HISTORY_SIZE` messages and `TOPIC_SERIES_MAX_FIELDS` ×
 * `TOPIC_SERIES_POINTS` points per topic. Pure: no sockets, no timers (topic-tree-session.ts
 * drives it), so it is testable alone.
 */
import {
  TOPIC_HISTORY_PREVIEW_CHARS,
  TOPIC_HISTORY_SIZE,
  TOPIC_NODE_PREVIEW_CHARS,
  TOPIC_SERIES_MAX_FIELDS,
  TOPIC_SERIES_POINTS,
  TOPIC_TREE_MAX_TOPICS,
  type TopicDetail,
  type TopicHistoryEntry,
  type TopicNode,
} from '../../shared/console-api-topics';

/** A message as the aggregation takes it: the payload already as (cut) JSON text. */
export interface TopicMessage {
  topic: string;
  at: number;
  from: string;
  payload: string;
  truncated: boolean;
  size: number;
  enc?: string;
  /** The parsed payload, for its numeric fields (not kept). */
  value: unknown;
}

interface Ring<T> {
  items: T[];
  /** Index the next item goes to once `items` is full. */
  next: number;
}

const push = <T>(ring: Ring<T>, item: T, cap: number): void => {
  if (ring.items.length < cap) ring.items.push(item);
  else {
    ring.items[ring.next] = item;
    ring.next = (ring.next + 1) % cap;
  }
};

/** Oldest first. */
const ordered = <T>(ring: Ring<T>): T[] =>
  ring.next === 0
    ? [...ring.items]
    : [...ring.items.slice(ring.next), ...ring.items.slice(0, ring.next)];

interface TopicState {
  count: number;
  /** Messages since the last `flush()`. */
  period: number;
  rate: number;
  /** The newest message in full preview (`TAP_PREVIEW_CHARS`); history entries are shorter. */
  newest: TopicHistoryEntry | null;
  lastAt: number | null;
  retained: boolean;
  /** Clients that would get a message on it (topic-subscribers.ts); null until known. */
  subscribers: number | null;
  history: Ring<TopicHistoryEntry>;
  series: Map<string, Ring<{ t: number; v: number }>>;
}

/**
 * The numeric fields of a payload: a bare number is `value`; an object's numbers, and those one
 * level down as `a.b`, in key order, at most `max`. Booleans and numeric strings are not plotted:
 * a chart of them misleads more than it shows.
 */
export function numericFields(value: unknown, max = TOPIC_SERIES_MAX_FIELDS): [string, number][] {
  if (typeof value === 'number') return Number.isFinite(value) ? [['value', value]] : [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: [string, number][] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (out.length >= max) break;
    if (typeof v === 'number' && Number.isFinite(v)) out.push([key, v]);
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [inner, w] of Object.entries(v as Record<string, unknown>)) {
        if (out.length >= max) break;
        if (typeof w === 'number' && Number.isFinite(w)) out.push([`${key}.${inner}`, w]);
      }
    }
  }
  return out;
}

export class TopicTreeStats {
  private readonly topics = new Map<string, TopicState>();
  /** Topics whose figures changed since the last `flush()`. */
  private dirty = new Set<string>();
  received = 0;
  overflow = 0;
  private period = 0;
  ratePerSec = 0;

  private counter: ((topic: string) => number) | null = null;

  constructor(private readonly maxTopics = TOPIC_TREE_MAX_TOPICS) {}

  /**
   * Sets how subscribers are counted (null: not known, shown as "—") and recounts every topic;
   * topics whose count changed are sent with the next update.
   */
  setSubscriberCounter(counter: ((topic: string) => number) | null): void {
    this.counter = counter;
    for (const [topic, state] of this.topics) {
      const n = counter ? counter(topic) : null;
      if (n !== state.subscribers) {
        state.subscribers = n;
        this.dirty.add(topic);
      }
    }
  }

  get size(): number {
    return this.topics.size;
  }

  /** Counts one live message. */
  add(message: TopicMessage): void {
    this.received += 1;
    this.period += 1;
    const state = this.state(message.topic);
    if (!state) {
      this.overflow += 1;
      return;
    }
    state.count += 1;
    state.period += 1;
    state.lastAt = message.at;
    this.keep(state, message, false);
    for (const [field, v] of numericFields(message.value)) {
      let ring = state.series.get(field);
      if (!ring) {
        // A topic whose payload shapes vary keeps its first fields.
        if (state.series.size >= TOPIC_SERIES_MAX_FIELDS) continue;
        ring = { items: [], next: 0 };
        state.series.set(field, ring);
      }
      push(ring, { t: message.at, v }, TOPIC_SERIES_POINTS);
    }
    this.dirty.add(message.topic);
  }

  /** Records a retained message read by the seed (not counted as traffic). */
  seedRetained(message: TopicMessage): void {
    const state = this.state(message.topic);
    if (!state) return;
    state.retained = true;
    // Live traffic read first wins: the retained message is older than it.
    if (state.newest === null) {
      state.lastAt = message.at;
      this.keep(state, message, true);
    }
    this.dirty.add(message.topic);
  }

  /**
   * Ends a period of `periodMs`: rates become the period's messages per second, and the topics
   * changed in it (or whose rate fell to 0) are returned and forgotten as changed.
   */
  flush(periodMs: number): TopicNode[] {
    const perSec = 1_000 / Math.max(1, periodMs);
    this.ratePerSec = round(this.period * perSec);
    this.period = 0;
    for (const [topic, state] of this.topics) {
      if (state.period === 0 && state.rate === 0) continue;
      const rate = round(state.period * perSec);
      if (rate !== state.rate) this.dirty.add(topic);
      state.rate = rate;
      state.period = 0;
    }
    const changed = [...this.dirty].map((topic) => this.node(topic, this.topics.get(topic)!));
    this.dirty = new Set();
    return changed;
  }

  /** Every topic's figures (the first update of a tree, a page that lost track). */
  all(): TopicNode[] {
    return [...this.topics].map(([topic, state]) => this.node(topic, state));
  }

  /** One topic's detail, or null when the tree has not seen it. */
  detail(treeId: string, topic: string): TopicDetail | null {
    const state = this.topics.get(topic);
    if (!state) return null;
    const history = ordered(state.history).reverse();
    // The newest entry with its longer preview.
    if (state.newest && history.length > 0) history[0] = state.newest;
    return {
      treeId,
      node: this.node(topic, state),
      history,
      series: [...state.series].map(([field, ring]) => ({ field, points: ordered(ring) })),
    };
  }

  private state(topic: string): TopicState | null {
    let state = this.topics.get(topic);
    if (!state) {
      if (this.topics.size >= this.maxTopics) return null;
      state = {
        count: 0,
        period: 0,
        rate: 0,
        newest: null,
        lastAt: null,
        retained: false,
        subscribers: this.counter ? this.counter(topic) : null,
        history: { items: [], next: 0 },
        series: new Map(),
      };
      this.topics.set(topic, state);
    }
    return state;
  }

  private keep(state: TopicState, message: TopicMessage, retained: boolean): void {
    const entry: TopicHistoryEntry = {
      at: message.at,
      from: message.from,
      payload: message.payload,
      truncated: message.truncated,
      size: message.size,
      ...(message.enc ? { enc: message.enc } : {}),
      retained,
    };
    state.newest = entry;
    const short =
      entry.payload.length > TOPIC_HISTORY_PREVIEW_CHARS
        ? {
            ...entry,
            payload: entry.payload.slice(0, TOPIC_HISTORY_PREVIEW_CHARS),
            truncated: true,
          }
        : entry;
    push(state.history, short, TOPIC_HISTORY_SIZE);
  }

  private node(topic: string, state: TopicState): TopicNode {
    const last = state.newest?.payload ?? null;
    return {
      topic,
      count: state.count,
      rate: state.rate,
      last: last === null ? null : last.slice(0, TOPIC_NODE_PREVIEW_CHARS),
      lastAt: state.lastAt,
      retained: state.retained,
      subscribers: state.subscribers,
    };
  }
}

const round = (n: number): number => Math.round(n * 10) / 10;
