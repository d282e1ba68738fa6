/**
 * MetricsPoller: scrapes one broker's HTTP API (`/health`, `/api/stats`, `/api/metrics`) every
 * `intervalMs`, validates the answers with the shared zod schemas, sums the message counters
 * and computes per-second rates, keeping a bounded ring buffer of samples.
 *
 * Source: ARCHITECTURE §1 (MetricsPoller ×N), `spec/protocol-admin.md` §10.3–10.5. A broker that
 * cannot be read never makes the poller throw: the sample says `reachable: false` and why.
 */
import type { Counters } from '../../shared/console-api';
import { errorInfo, type ErrorInfo } from '../../shared/error-catalogue';
import {
  HealthSchema,
  HttpPath,
  StatsSchema,
  type Health,
  type Stats,
} from '../../shared/http-api';
import { MetricName } from '../../shared/metric-names';
import { apiUrl, assertBearerAllowed, parseBrokerUrl, type EndpointTls } from './broker-endpoint';
import { readClusterRelay } from './cluster-relay-counters';
import { RefusalBackoff, type BackoffState, type RefusalBackoffOptions } from './refusal-backoff';
import { httpGetText } from './http-get';
import { parsePrometheusText, sumSamples, type PromExposition } from './prometheus-text';
import { RingBuffer } from './ring-buffer';

/**
 * Where to scrape: `baseUrl` like `http://127.0.0.1:17352` or `https://host/broker-a` (the base
 * path is kept); optional admin bearer token (§10.2), refused over clear-text http to a
 * non-loopback host unless `allowInsecureBearer`.
 */
export interface ScrapeTarget {
  baseUrl: string;
  bearerToken?: string | null;
  tls?: EndpointTls;
  allowInsecureBearer?: boolean;
}

/** End of a scrape error whose `/api/*` needs an admin token the connection does not have. */
export const NO_ADMIN_TOKEN_MESSAGE =
  'needs an admin token (HTTP 401) and this connection has none: metrics are not shown';

/** True when a scrape error means "the broker answers, but shows no figures to us". */
export function isLimitedScrape(message: string | null | undefined): boolean {
  return (
    !!message && (message === HTTP_API_OFF_MESSAGE || message.endsWith(NO_ADMIN_TOKEN_MESSAGE))
  );
}

/** End of a scrape's message when the broker answered 401 to the connection's admin token. */
export const REFUSED_TOKEN_MESSAGE = 'the broker refused the admin token';

/** Whether a scrape failed because the broker refused the connection's admin token. */
export function isRefusedScrape(message: string | null | undefined): boolean {
  return !!message && message.endsWith(REFUSED_TOKEN_MESSAGE);
}

/** Message of a scrape whose `/health` was refused: the broker's HTTP API is off (§10.1). */
export const HTTP_API_OFF_MESSAGE =
  "The broker's HTTP API is switched off (http_api.enabled: false), so there are no metrics " +
  'or stats to show. Signed commands (requests, realms) still work.';

/** One scrape. Times are epoch ms; rates are messages per second. */
export interface BrokerSample {
  /** Wall-clock time, epoch ms (display only: the clock may step back). */
  sampledAt: number;
  /** 1, 2, 3… per poller: the order of samples. */
  seq: number;
  /** `performance.now()` at the sample, ms: rates are computed on this monotonic clock. */
  monotonicAt: number;
  reachable: boolean;
  error: ErrorInfo | null;
  health: Health | null;
  stats: Stats | null;
  counters: Counters | null;
  /** Over the previous reachable sample; null for the first one or after an outage. */
  rates: { produced: number; delivered: number } | null;
}

/** Listener of `onSample`: the sample and the exposition it was read from (null if unread). */
export type SampleListener = (sample: BrokerSample, metrics: PromExposition | null) => void;

export interface MetricsPollerOptions {
  /** A fixed target, or a function asked before every scrape (null: nothing to scrape now). */
  target: ScrapeTarget | (() => ScrapeTarget | null);
  /** Scrape period in ms. Default 1000. */
  intervalMs?: number;
  /** Per-request timeout in ms. Default 2000. */
  timeoutMs?: number;
  /** Samples kept. Default 600 (ten minutes at 1 s). */
  capacity?: number;
  /** Error reported while `target()` returns null. Default `SWB_ERR_BROKER_UNREACHABLE`. */
  unavailableError?: ErrorInfo;
  /**
   * Backoff after the broker refused the admin token (HTTP 401): the next scrape waits
   * `baseMs` (default 2 s), doubling per refusal up to `maxMs` (default 60 s), instead of
   * `intervalMs`, so a wrong credential does not make the broker log a refusal every second.
   */
  refusalBackoff?: Omit<RefusalBackoffOptions, 'now'>;
}

export class MetricsPoller {
  private readonly buffer: RingBuffer<BrokerSample>;
  private readonly listeners = new Set<SampleListener>();
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private inFlight: Promise<BrokerSample> | null = null;
  private lastReachable: BrokerSample | null = null;
  private seq = 0;
  private readonly backoff: RefusalBackoff;

  constructor(private readonly options: MetricsPollerOptions) {
    this.intervalMs = options.intervalMs ?? 1_000;
    this.buffer = new RingBuffer(options.capacity ?? 600);
    this.backoff = new RefusalBackoff(options.refusalBackoff);
  }

  /** Whether the poller is backing off after refusals of the admin token, and until when. */
  backoffState(): BackoffState | null {
    return this.backoff.state();
  }

  /** Starts periodic scraping (first scrape immediately). Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops scraping; a scrape in flight still completes and is recorded. */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The newest sample, or null before the first scrape completes. */
  latest(): BrokerSample | null {
    return this.buffer.last() ?? null;
  }

  /** Kept samples, oldest first. */
  samples(): BrokerSample[] {
    return this.buffer.toArray();
  }

  /**
   * Subscribes to every new sample, with the parsed `/api/metrics` it came from (null when the
   * broker was not read; not kept, so the ring buffer stays small); returns the unsubscribe
   * function.
   */
  onSample(listener: SampleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Scrapes now (joining a scrape already in flight). Never rejects. */
  pollOnce(): Promise<BrokerSample> {
    this.inFlight ??= this.scrape().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      const startedAt = Date.now();
      void this.pollOnce().then(() => {
        if (!this.running) return;
        const backoff = this.backoff.state();
        // Keep a steady period without ever overlapping scrapes of a slow broker; after a
        // refusal, wait out the backoff instead.
        this.schedule(
          backoff
            ? Math.max(0, backoff.retryAt - Date.now())
            : Math.max(0, this.intervalMs - (Date.now() - startedAt)),
        );
      });
    }, delayMs);
  }

  private async scrape(): Promise<BrokerSample> {
    let sample: BrokerSample;
    let metrics: PromExposition | null = null;
    try {
      const target =
        typeof this.options.target === 'function' ? this.options.target() : this.options.target;
      if (target) ({ sample, metrics } = await this.read(target));
      else
        sample = this.unreachable(
          this.options.unavailableError ?? errorInfo('SWB_ERR_BROKER_UNREACHABLE'),
        );
    } catch (error) {
      // Down, refused, or a profile that cannot be used (unreadable CA file…): one outage.
      sample = this.unreachable(errorInfo('SWB_ERR_BROKER_UNREACHABLE', (error as Error).message));
    }
    if (isRefusedScrape(sample.error?.message)) this.backoff.refused();
    else this.backoff.reset();
    this.buffer.push(sample);
    this.lastReachable = sample.reachable ? sample : null;
    for (const listener of this.listeners) listener(sample, metrics);
    return sample;
  }

  private async read(
    target: ScrapeTarget,
  ): Promise<{ sample: BrokerSample; metrics: PromExposition }> {
    // Before any request: the admin token never crosses a network in clear without an opt-in.
    if (target.bearerToken) {
      assertBearerAllowed(parseBrokerUrl(target.baseUrl), target.allowInsecureBearer === true);
    }
    // `/health` first: its refusal is what says the HTTP API is off.
    const healthJson = await this.get(target, HttpPath.HEALTH, false);
    const [statsJson, metricsText] = await Promise.all([
      this.get(target, HttpPath.STATS, true),
      this.get(target, HttpPath.METRICS, true),
    ]);
    const health = validate(HealthSchema, parseJson(healthJson, HttpPath.HEALTH), HttpPath.HEALTH);
    const stats = validate(StatsSchema, parseJson(statsJson, HttpPath.STATS), HttpPath.STATS);
    let exposition;
    try {
      exposition = parsePrometheusText(metricsText);
    } catch (error) {
      throw new Error(`Invalid ${HttpPath.METRICS} response: ${(error as Error).message}`);
    }
    const counters: Counters = {
      produced: sumSamples(exposition, MetricName.MESSAGES_PRODUCED_TOTAL),
      delivered: sumSamples(exposition, MetricName.MESSAGES_DELIVERED_TOTAL),
      connectionsTotal: sumSamples(exposition, MetricName.CONNECTIONS_TOTAL),
      connectionsCurrent: sumSamples(exposition, MetricName.CONNECTIONS_CURRENT),
    };
    const cluster = readClusterRelay(exposition);
    if (cluster) counters.cluster = cluster;
    const stamp = this.stamp();
    const sample: BrokerSample = {
      ...stamp,
      reachable: true,
      error: null,
      health,
      stats,
      counters,
      rates: this.rates(counters, stamp.monotonicAt),
    };
    return { sample, metrics: exposition };
  }

  private stamp(): Pick<BrokerSample, 'sampledAt' | 'seq' | 'monotonicAt'> {
    this.seq += 1;
    return { sampledAt: Date.now(), seq: this.seq, monotonicAt: performance.now() };
  }

  private rates(counters: Counters, monotonicAt: number): BrokerSample['rates'] {
    const previous = this.lastReachable;
    if (!previous?.counters) return null;
    // Monotonic: a wall clock stepping back must not stop (or negate) the rates.
    const seconds = (monotonicAt - previous.monotonicAt) / 1000;
    if (seconds <= 0) return null;
    // A counter that went down means the broker restarted: count from zero (Prometheus rate()).
    const increase = (now: number, before: number): number => (now >= before ? now - before : now);
    return {
      produced: increase(counters.produced, previous.counters.produced) / seconds,
      delivered: increase(counters.delivered, previous.counters.delivered) / seconds,
    };
  }

  private async get(target: ScrapeTarget, path: string, authenticated: boolean): Promise<string> {
    const headers: Record<string, string> = {};
    if (authenticated && target.bearerToken) {
      headers.authorization = `Bearer ${target.bearerToken}`;
    }
    const response = await httpGetText(apiUrl(target.baseUrl, path), {
      timeoutMs: this.options.timeoutMs ?? 2_000,
      headers,
      tls: target.tls,
    });
    // An unhandled path on a broker gets a bare 403 (or 404 behind a proxy): no HTTP API.
    if (!authenticated && (response.status === 403 || response.status === 404)) {
      throw new Error(HTTP_API_OFF_MESSAGE);
    }
    if (response.status === 401) {
      throw new Error(
        target.bearerToken
          ? `GET ${path} answered HTTP 401: ${REFUSED_TOKEN_MESSAGE}`
          : `GET ${path} ${NO_ADMIN_TOKEN_MESSAGE}`,
      );
    }
    if (response.status !== 200) throw new Error(`GET ${path} answered HTTP ${response.status}`);
    return response.body;
  }

  private unreachable(error: ErrorInfo): BrokerSample {
    return {
      ...this.stamp(),
      reachable: false,
      error,
      health: null,
      stats: null,
      counters: null,
      rates: null,
    };
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`Invalid ${path} response: not JSON`);
  }
}

function validate<T>(
  schema: {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  value: unknown,
  path: string,
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : '(root)';
  throw new Error(`Invalid ${path} response: ${where}: ${issue?.message ?? 'schema mismatch'}`);
}
