/**
 * One live tap: a consumer socket subscribed (no ACK, not durable) to a topic pattern or a
 * producer's event, whose deliveries are sampled down to `maxRatePerSec` and pushed as batches
 * of at most one per `batchMs`, so neither the transport nor the page is flooded however fast
 * the realm runs.
 *
 * Source: `spec/protocol-core.md` §3.3 (SUBSCRIBE), Note 3.4 (UNSUBSCRIBE by `{event, producer,
 * consumer}`), §8 (envelope), §11 (topic keys), Note 2.3-A (`TM-ALL`).
 */
import {
  ClientEvent,
  Protocol,
  ServerEvent,
  allEventsKey,
  anyProducerKey,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../shared/protocol-events';
import {
  TAP_PREVIEW_CHARS,
  type TapBatch,
  type TapMessage,
  type TapTarget,
} from '../../shared/console-api-tap';
import type { ErrorInfo } from '../../shared/error-catalogue';
import type { RealmSocket } from './realm-access';
import { TapChunkJoiner } from './tap-chunk-joiner';

export interface TapSessionOptions {
  tapId: string;
  connectionId: string;
  client: RealmSocket;
  target: TapTarget;
  maxRatePerSec: number;
  emit: (batch: TapBatch) => void;
  /** Called once when the session ends, whatever the reason. */
  onEnd: () => void;
  /**
   * Removes the tap's consumer from the broker once its socket is closed (tap-leftovers.ts):
   * nothing else deregisters it. Best effort; must not reject.
   */
  forget?: (consumer: string) => Promise<unknown>;
  /** How long `stop()` waits for the broker to close the socket after `QUIT`, ms. Default 2000. */
  quitTimeoutMs?: number;
  /** Batch period in ms. Default 100. */
  batchMs?: number;
}

/** The subscription key and the `SUBSCRIBE` payload for a target (§2.2, §11). */
export function tapSubscription(
  target: TapTarget,
  consumer: string,
): { key: string; subscribe: Record<string, unknown> } {
  const base = { consumer, consumer_id: consumer, durable: false, ack: false };
  if (target.kind === 'topic') {
    return {
      key: anyProducerKey(target.pattern),
      subscribe: {
        ...base,
        event: target.pattern,
        producer: Protocol.ALL_PUBLISHERS,
        mode: 'topic',
      },
    };
  }
  const all = target.event.toUpperCase() === Protocol.EVENT_ALL;
  return {
    key: all ? allEventsKey(target.producer) : subscriptionKey(target.producer, target.event),
    subscribe: {
      ...base,
      event: target.event,
      producer: target.producer,
      ...(all ? { scope: Protocol.SCOPE_ALL } : {}),
    },
  };
}

/** `value` as JSON text cut to `TAP_PREVIEW_CHARS`, with the length of the whole text. */
export function preview(value: unknown): { payload: string; truncated: boolean; size: number } {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch {
    text = String(value);
  }
  return text.length > TAP_PREVIEW_CHARS
    ? { payload: text.slice(0, TAP_PREVIEW_CHARS), truncated: true, size: text.length }
    : { payload: text, truncated: false, size: text.length };
}

export class TapSession {
  readonly key: string;
  /** The tap's consumer name on the broker, `switchboard-tap-<12 hex>`. */
  readonly consumer: string;
  private readonly subscribe: Record<string, unknown>;
  private readonly perWindow: number;
  private readonly timer: NodeJS.Timeout;
  private readonly chunks: TapChunkJoiner;
  private pending: TapMessage[] = [];
  private seq = 0;
  private received = 0;
  private sampledOut = 0;
  private windowCount = 0;
  /** Arrivals per batch window over the last second (ring of 1000/batchMs buckets). */
  private readonly buckets: number[];
  private bucket = 0;
  private dirty = false;
  private ended = false;
  /** The one ending in progress or done: a second `stop()` waits for the same clean-up. */
  private ending: Promise<void> | null = null;

  constructor(private readonly options: TapSessionOptions) {
    const batchMs = options.batchMs ?? 100;
    this.consumer = `switchboard-tap-${options.tapId.slice(0, 12)}`;
    const { key, subscribe } = tapSubscription(options.target, this.consumer);
    this.key = key;
    this.subscribe = subscribe;
    this.buckets = new Array<number>(Math.max(1, Math.round(1_000 / batchMs))).fill(0);
    this.perWindow = Math.max(1, Math.ceil((options.maxRatePerSec * batchMs) / 1_000));
    const socket = options.client.socket;
    socket.on(consumeEvent(key), (envelope: DeliveryEnvelope) => this.arrive(envelope));
    // Deliveries above 262,144 code units come as frames (§14.2): joined, then counted and
    // sampled like any other message.
    this.chunks = new TapChunkJoiner(consumeEvent(key));
    socket.on(ServerEvent.CONSUME_CHUNK, (frame) => {
      const joined = this.chunks.add(frame);
      if (joined) this.arrive(() => JSON.parse(joined.text) as DeliveryEnvelope);
    });
    socket.on('disconnect', () => {
      if (!this.ended) {
        void this.end({
          code: 'SWB_ERR_BROKER_UNREACHABLE',
          message: 'The broker closed the tap connection (stopped, restarted, or realm removed)',
        });
      }
    });
    socket.emit(ClientEvent.SUBSCRIBE, subscribe);
    this.timer = setInterval(() => this.flush(), batchMs);
  }

  /**
   * Unsubscribes, quits (the broker closes the socket), revokes a temporary token, sends the
   * last batch, then removes the consumer from the broker (`forget`).
   */
  stop(): Promise<void> {
    return this.end(null);
  }

  /**
   * Counts one delivery and keeps it unless sampled out. A joined large delivery comes as a
   * function that parses it, so one that is sampled out is never parsed.
   */
  private arrive(delivery: DeliveryEnvelope | (() => DeliveryEnvelope)): void {
    this.received += 1;
    this.buckets[this.bucket] = (this.buckets[this.bucket] ?? 0) + 1;
    this.dirty = true;
    // Sampling: at most `perWindow` messages per batch window pass; the rest are only counted.
    if (this.windowCount >= this.perWindow) {
      this.sampledOut += 1;
      return;
    }
    this.windowCount += 1;
    let envelope: DeliveryEnvelope;
    try {
      envelope = typeof delivery === 'function' ? delivery() : delivery;
    } catch {
      // A broker that sent frames which do not join into JSON: shown as such, not dropped.
      envelope = { event: '', from: '', message: '(large message: its frames are not JSON)' };
    }
    const raw = envelope as DeliveryEnvelope & { msgId?: unknown };
    this.pending.push({
      seq: this.seq++,
      at: Date.now(),
      event: typeof envelope?.event === 'string' ? envelope.event : '',
      from: typeof envelope?.from === 'string' ? envelope.from : '',
      ...preview(envelope?.message),
      msgId: typeof raw?.msgId === 'string' ? raw.msgId : null,
      ...(typeof raw?.enc === 'string' ? { enc: raw.enc.slice(0, 32) } : {}),
    });
  }

  private flush(): void {
    this.windowCount = 0;
    this.bucket = (this.bucket + 1) % this.buckets.length;
    const wasDirty = this.dirty;
    this.buckets[this.bucket] = 0;
    if (!wasDirty) return;
    this.dirty = this.buckets.some((n) => n > 0);
    this.send('running', null);
  }

  private send(state: TapBatch['state'], error: ErrorInfo | null): void {
    const messages = this.pending;
    this.pending = [];
    this.options.emit({
      tapId: this.options.tapId,
      connectionId: this.options.connectionId,
      messages,
      received: this.received,
      sampledOut: this.sampledOut,
      ratePerSec: this.buckets.reduce((sum, n) => sum + n, 0),
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
    await leaveBroker(
      this.options.client,
      this.subscribe,
      this.consumer,
      this.options.quitTimeoutMs ?? 2_000,
    );
    this.send('stopped', error);
    this.options.onEnd();
    await this.options.forget?.(this.consumer);
  }
}

/**
 * Takes a tap-like consumer off the broker: `UNSUBSCRIBE` (Note 3.4), `QUIT`, then closes the
 * socket (revoking a temporary token). Shared by the tap and the topic tree. Never rejects.
 */
export async function leaveBroker(
  client: RealmSocket,
  subscribe: Record<string, unknown>,
  consumer: string,
  quitTimeoutMs: number,
): Promise<void> {
  const socket = client.socket;
  if (socket.connected) {
    socket.emit(ClientEvent.UNSUBSCRIBE, {
      event: subscribe.event,
      producer: subscribe.producer,
      consumer,
    });
    await quit(socket, quitTimeoutMs);
  }
  await client.close().catch(() => undefined);
}

/**
 * `QUIT` with the socket's own id (§3): the broker disconnects it, so once the disconnect is
 * here the broker has taken the consumer offline (§15) and `remove_consumer` will not find it
 * online. Resolves on the disconnect or after `timeoutMs` (a broker that ignores QUIT).
 */
function quit(socket: RealmSocket['socket'], timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      socket.off('disconnect', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('disconnect', done);
    socket.emit(ClientEvent.QUIT, socket.id);
  });
}
