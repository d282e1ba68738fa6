/**
 * Closed-loop load generation: one producer publishing to a set of consumers, with a bounded
 * number of messages in flight, and per-delivery latency recording.
 *
 * Flow control: a message is "in flight" from its `PRODUCE` until every expected consumer has
 * received it. The producer keeps at most `window` messages in flight and publishes the next
 * one as soon as one completes, so the measured rate is what the server sustains, not how fast
 * the client can fill socket buffers; queues cannot grow past `window × consumers` deliveries.
 *
 * Latency: every message carries its send time (`performance.now()` of this process, ms); each
 * delivery records `receive time − send time`. Producer and consumers live in the same process,
 * so there is no cross-process clock to reconcile.
 *
 * Units: times in ms, rates per second.
 */
import { performance } from 'node:perf_hooks';
import { ClientEvent, type DeliveryEnvelope } from '../../shared/protocol-events';
import { paddingFor, type BenchMessage, type Socket } from './clients';
import { summariseLatency, type LatencySummary } from './stats';

/** A consumer socket and the delivery event (`CONSUME-<key>`) it listens on. */
export interface BenchConsumer {
  socket: Socket;
  deliveryEvent: string;
}

export interface PhaseOptions {
  /** Messages to publish (each goes to every consumer). */
  messages: number;
  /** Most messages in flight at once. */
  window: number;
  /** Publishing stops after this long even if `messages` is not reached, ms. */
  capMs: number;
  /** After publishing stops, how long to wait for outstanding deliveries, ms. */
  drainTimeoutMs?: number;
}

/** Outcome of one phase. */
export interface PhaseResult {
  published: number;
  /** Deliveries received (one per consumer per message). */
  delivered: number;
  /** Deliveries expected (`published × consumers`). */
  expected: number;
  /** From the first publish to the last delivery, ms. */
  elapsedMs: number;
  /** Deliveries per second, summed over consumers. */
  deliveriesPerS: number;
  /** Fully delivered messages per second. */
  messagesPerS: number;
  /** Whether publishing was cut short by `capMs`. */
  capped: boolean;
  latency: LatencySummary;
}

interface ActivePhase {
  base: number;
  remaining: Int32Array;
  samples: Float64Array;
  received: number;
  onComplete: () => void;
}

/** One producer and its consumers; listeners are attached once and removed by `detach`. */
export class LoadSession {
  private seq = 0;
  private phaseState: ActivePhase | null = null;
  private readonly seen: boolean[];
  private readonly padding: string;
  private readonly detachers: Array<() => void> = [];

  constructor(
    private readonly producer: Socket,
    private readonly producerName: string,
    private readonly event: string,
    private readonly consumers: readonly BenchConsumer[],
    payloadBytes: number,
  ) {
    this.padding = paddingFor(payloadBytes);
    this.seen = consumers.map(() => false);
    consumers.forEach((consumer, index) => {
      const listener = (envelope: DeliveryEnvelope) => this.onDelivery(index, envelope);
      consumer.socket.on(consumer.deliveryEvent, listener);
      this.detachers.push(() => consumer.socket.off(consumer.deliveryEvent, listener));
    });
  }

  /** Length of the JSON text of one message as published, bytes (ASCII). */
  get messageJsonBytes(): number {
    return JSON.stringify(this.message()).length;
  }

  /**
   * Readiness barrier: publishes a probe every `everyMs` until every consumer has received at
   * least one, so that every subscription is known to be in place. Rejects after `timeoutMs`.
   */
  async untilAllReceive(timeoutMs = 15_000, everyMs = 25): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!this.seen.every(Boolean)) {
      if (performance.now() > deadline) {
        const missing = this.seen.filter((s) => !s).length;
        throw new Error(`${missing} of ${this.seen.length} consumers never received a probe`);
      }
      this.publish();
      await sleep(everyMs);
    }
    await sleep(50); // let the last probes drain before a measured phase starts
  }

  /** Runs one closed-loop phase (see the module comment). */
  phase(options: PhaseOptions): Promise<PhaseResult> {
    const n = this.consumers.length;
    const total = options.messages;
    const state: ActivePhase = {
      base: this.seq,
      remaining: new Int32Array(total).fill(n),
      samples: new Float64Array(total * n),
      received: 0,
      onComplete: () => {},
    };
    let published = 0;
    let inFlight = 0;
    let completed = 0;
    let stopped = false;
    let capped = false;
    let lastDelivery = 0;
    const started = performance.now();

    return new Promise<PhaseResult>((resolve) => {
      const finish = () => {
        clearTimeout(capTimer);
        clearTimeout(drainTimer);
        this.phaseState = null;
        const elapsedMs = (lastDelivery || performance.now()) - started;
        const seconds = elapsedMs / 1000;
        resolve({
          published,
          delivered: state.received,
          expected: published * n,
          elapsedMs,
          deliveriesPerS: state.received / seconds,
          messagesPerS: completed / seconds,
          capped,
          latency: summariseLatency(state.samples, state.received),
        });
      };
      const pump = () => {
        while (!stopped && inFlight < options.window && published < total) {
          this.publish();
          published++;
          inFlight++;
        }
        if (inFlight === 0 && (stopped || published === total)) finish();
      };
      state.onComplete = () => {
        lastDelivery = performance.now();
        completed++;
        inFlight--;
        pump();
      };
      let drainTimer: NodeJS.Timeout | undefined;
      const capTimer = setTimeout(() => {
        capped = published < total;
        stopped = true;
        drainTimer = setTimeout(finish, options.drainTimeoutMs ?? 10_000);
      }, options.capMs);
      this.phaseState = state;
      pump();
    });
  }

  /** Removes the delivery listeners. */
  detach(): void {
    for (const off of this.detachers) off();
  }

  private message(): BenchMessage {
    return { s: this.seq, t: performance.now(), p: this.padding };
  }

  private publish(): void {
    const message = this.message();
    this.seq++;
    this.producer.emit(ClientEvent.PRODUCE, {
      event: this.event,
      message,
      from: this.producerName,
    });
  }

  private onDelivery(consumer: number, envelope: DeliveryEnvelope): void {
    const now = performance.now();
    this.seen[consumer] = true;
    const state = this.phaseState;
    const message = envelope.message as BenchMessage;
    if (!state || message.s < state.base) return; // a probe or an earlier phase's message
    const index = message.s - state.base;
    if (index >= state.remaining.length) return;
    state.samples[state.received++] = now - message.t;
    if (--state.remaining[index]! === 0) state.onComplete();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
