/**
 * A broker's stop, graceful or not (issue 23; docs/http-api.md "Drain"): `Broker.drain()` (the
 * CLI's SIGTERM/SIGINT) and `Broker.close()` run the same steps, `close()` without a grace.
 *
 * 1. The phase turns `draining`: `GET /ready` answers 503 (`draining: true`) from now on.
 * 2. Grace (`graceMs`): new connections are still accepted and served as usual, so clients a
 *    load balancer still sends here are not refused before it has seen the 503. `close()`
 *    called meanwhile ends the grace at once.
 * 3. New connections are refused (`stopAccepting`); the work in progress — durable writes
 *    awaiting their commit, publisher confirms, `ACK_OK`s (`PendingWork`) — may finish.
 * 4. Every transport is closed without socket.io's DISCONNECT packet (clients reconnect, to
 *    this node once restarted or to another one; `close-transports.ts`), after flushing what
 *    each is owed.
 * 5. The rest is released (`release`: timers, MQTT, cluster, servers, and the store, which
 *    commits its pending writes before it closes); the phase turns `closed`.
 *
 * `timeoutMs` bounds steps 3–5: at most `timeoutMs - flush - reserve` for the work, `flush`
 * (≤ 1 s) for the transports, the rest (`reserve`, ≤ 2 s) for closing. Work still pending then
 * is cut short (at-least-once: a copy not confirmed is re-sent by its producer, one not ACKed
 * is redelivered). One line is logged when the stop begins and one when it ends, with counts.
 */
import type { PendingWork } from '../handlers/pending-work';
import type { BrokerPhase } from '../http/broker-readiness';
import type { Logger } from '../logging/logger';

/** Longest wait for the connections to flush and close, in ms. */
const FLUSH_MS = 1_000;
/** Time kept for closing the store, cluster and servers once the work is done, in ms. */
const CLOSE_RESERVE_MS = 2_000;

export interface DrainOptions {
  /** ms new connections are still accepted after readiness turned 503; default `shutdown.grace_ms`. */
  graceMs?: number;
  /** ms the stop may take after the grace; default `shutdown.timeout_ms` (10,000). */
  timeoutMs?: number;
  /** Why (logged), e.g. `SIGTERM`. */
  reason?: string;
}

/** What a stop did; counts are since the stop began. Times in ms. */
export interface DrainReport {
  /** socket.io and MQTT connections that were open when the transports were closed. */
  connectionsClosed: number;
  /** Connections that had not closed within the flush time (then dropped). */
  connectionsCutShort: number;
  /** Durable writes, confirms and `ACK_OK`s that finished during the stop. */
  workFinished: number;
  /** Work still pending when its time ran out. */
  workCutShort: number;
  /** From the start of the stop (the grace included) to its end. */
  elapsedMs: number;
}

export interface DrainSteps {
  logger: Logger;
  pending: PendingWork;
  /** Connections open now (socket.io and MQTT). */
  connections: () => number;
  /** Refuses new connections from now on, on every listener; open ones go on. */
  stopAccepting: () => void;
  /** Closes every transport within `ms`; resolves with how many were still open then. */
  closeTransports: (ms: number) => Promise<number>;
  /** Everything after the transports, the store last. */
  release: () => Promise<void>;
}

/** The time budget of steps 3–5 for a `timeoutMs`: work, flush, closing. */
export function drainBudget(timeoutMs: number): { settleMs: number; flushMs: number } {
  const flushMs = Math.min(FLUSH_MS, Math.floor(timeoutMs / 4));
  const reserve = Math.min(CLOSE_RESERVE_MS, Math.floor(timeoutMs / 4));
  return { settleMs: Math.max(0, timeoutMs - flushMs - reserve), flushMs };
}

export class GracefulDrain {
  private current: BrokerPhase = 'running';
  private run: Promise<DrainReport> | null = null;
  private endGrace: (() => void) | null = null;

  constructor(private readonly steps: DrainSteps) {}

  get phase(): BrokerPhase {
    return this.current;
  }

  /**
   * Starts the stop, or joins the one under way (a grace of 0 then ends its grace now).
   * Resolves with the report once everything is closed; rejects only when `release` does.
   */
  stop(options: Required<Pick<DrainOptions, 'graceMs' | 'timeoutMs'>> & DrainOptions) {
    if (this.run) {
      if (options.graceMs === 0) this.endGrace?.();
      return this.run;
    }
    this.current = 'draining';
    this.run = this.drain(options);
    return this.run;
  }

  private async drain(options: DrainOptions & { graceMs: number; timeoutMs: number }) {
    const { logger, pending } = this.steps;
    const startedAt = performance.now();
    const finishedBefore = pending.finished;
    logger.info(
      {
        ...(options.reason ? { reason: options.reason } : {}),
        grace_ms: options.graceMs,
        timeout_ms: options.timeoutMs,
        connections: this.steps.connections(),
        work_in_progress: pending.size,
      },
      'stopping broker',
    );
    if (options.graceMs > 0) await this.grace(options.graceMs);
    this.steps.stopAccepting();
    const budget = drainBudget(options.timeoutMs);
    const workCutShort = await pending.settled(budget.settleMs);
    const connectionsClosed = this.steps.connections();
    const connectionsCutShort = await this.steps.closeTransports(budget.flushMs);
    await this.steps.release();
    this.current = 'closed';
    const report: DrainReport = {
      connectionsClosed,
      connectionsCutShort,
      workFinished: pending.finished - finishedBefore,
      workCutShort,
      elapsedMs: Math.round(performance.now() - startedAt),
    };
    const cut = workCutShort > 0 || connectionsCutShort > 0;
    logger[cut ? 'warn' : 'info'](
      {
        connections_closed: report.connectionsClosed,
        connections_cut_short: report.connectionsCutShort,
        work_finished: report.workFinished,
        work_cut_short: report.workCutShort,
        elapsed_ms: report.elapsedMs,
      },
      cut ? 'broker stopped: work or connections cut short' : 'broker stopped',
    );
    return report;
  }

  /** Waits `ms`, or less when `close()` is called meanwhile. */
  private grace(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.endGrace = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.endGrace = done;
    });
  }
}
