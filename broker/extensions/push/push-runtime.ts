/**
 * Push wake for offline consumers (`spec/protocol-extensions.md` §6.5–§6.6): the runtime the
 * composition root hands the broker (`ExtensionState.pushRuntime`). `wake` is the
 * fire-and-forget trigger (never awaited, never throws, R99); `fireWake` is §6.6's algorithm:
 * unconfigured → stop; no endpoints → stop (window not consumed); coalesce per (realm,
 * identity) over 30 s (consumed before sending); then every endpoint in parallel through its
 * own transport (own-key lookup), acting on the result: gone → pruned, ok → `last_ok`, other →
 * warned (`unsafe` or `transient`), exception → warned (`error`).
 *
 * Retries (Note 6-E, Switchboard extension `TYO_MQ_PUSH_RETRY=1`; off by default, as R91
 * expects one POST): a `retryable` result (429, 5xx, timeout, network) is retried at most
 * `PUSH_RETRY_MAX` times with jittered exponential backoff from 5 s, inside the same window.
 * Gone, auth and unsafe results are never retried.
 *
 * Warnings are token-free, at most one per (transport, reason) per 60 s:
 * `push wake failed: transport=<name> reason=<gone|transient|unsafe|error|auth>`.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { MetricName } from '../../../shared/metric-names';
import { ExtensionLimit } from '../../../shared/protocol-extensions';
import type { Logger } from '../../logging/logger';
import { PerKeyThrottle } from '../../logging/per-key-throttle';
import type { PushConfig } from './push-config';
import { localPushDirectory, type PushDirectory, type PushRegistry } from './push-registry';
import {
  buildWakePayload,
  type PushEndpoint,
  type PushRuntime,
  type SendResult,
  type WakeResult,
} from './push-types';
import { isSafePushUrl } from './ssrf-guard';

/** Note 6-E: retries per endpoint at most, and the first backoff (ms). */
export const PUSH_RETRY_MAX = 2;
export const PUSH_RETRY_BASE_MS = 5_000;

export interface PushRuntimeDeps {
  config: PushConfig | null;
  /** The per-node registry (the registrations gauge). */
  registry: PushRegistry;
  /**
   * Where registrations live: clustered, the one shared in Redis (Note 6-G); default the
   * per-node `registry`.
   */
  directory?: PushDirectory;
  logger: Logger;
  registry_metrics: Registry;
  /**
   * Clustered with per-node registrations: §6.10's warning on registration (false when the
   * registry is shared in Redis, Note 6-G).
   */
  clustered: boolean;
  /** First retry backoff, ms (tests shorten it). */
  retryBaseMs?: number;
  /** Test hook (R99): called at the start of each wake; may throw. */
  onWake?: () => void;
}

type Outcome = 'ok' | 'gone' | 'transient' | 'unsafe' | 'auth' | 'error';

export class PushService implements PushRuntime {
  readonly configured: boolean;
  private readonly failLog = new PerKeyThrottle(ExtensionLimit.PUSH_FAIL_LOG_WINDOW_MS);
  private readonly windows = new WeakMap<object, { start: number; count: number }>();
  private readonly wakes: Counter<'transport' | 'outcome'>;
  private readonly retries: Counter<'transport'>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private clusterWarned = false;
  private closed = false;

  private readonly directory: PushDirectory;

  constructor(private readonly deps: PushRuntimeDeps) {
    this.directory = deps.directory ?? localPushDirectory(deps.registry);
    this.configured = deps.config !== null && deps.config.transports.size > 0;
    const registers = [deps.registry_metrics];
    this.wakes = new Counter({
      name: MetricName.PUSH_WAKES_TOTAL,
      help: 'Push wake attempts by transport and outcome',
      labelNames: ['transport', 'outcome'],
      registers,
    });
    this.retries = new Counter({
      name: MetricName.PUSH_WAKE_RETRIES_TOTAL,
      help: 'Push wake retries by transport (TYO_MQ_PUSH_RETRY)',
      labelNames: ['transport'],
      registers,
    });
    const registry = deps.registry;
    new Gauge({
      name: MetricName.PUSH_REGISTRATIONS,
      help: 'Push endpoints registered on this node',
      registers,
      collect() {
        this.set(registry.total());
      },
    });
  }

  wake(realm: string, identity: string): void {
    try {
      this.fireWake(realm, identity).catch((err: unknown) =>
        this.deps.logger.error({ err, realm }, 'push wake failed unexpectedly'),
      );
    } catch (err) {
      this.deps.logger.error({ err, realm }, 'push wake failed unexpectedly');
    }
  }

  fireWake(realm: string, identity: string): Promise<WakeResult> {
    this.deps.onWake?.();
    const config = this.deps.config;
    if (!this.configured || config === null) {
      return Promise.resolve({ sent: 0, skipped: 'unconfigured' });
    }
    return this.wakeWith(config, realm, identity);
  }

  private async wakeWith(config: PushConfig, realm: string, identity: string): Promise<WakeResult> {
    const { directory } = this;
    const endpoints = await directory.endpoints(realm, identity);
    if (endpoints.length === 0) return { sent: 0, skipped: 'no-endpoints' };
    if (!(await directory.claimWindow(realm, identity))) return { sent: 0, skipped: 'coalesced' };
    const payload = buildWakePayload();
    const sends = endpoints.map(async (endpoint) => {
      // A Map: `__proto__` and `hasOwnProperty` are ordinary, absent keys (own-key lookup).
      const transport = config.transports.get(endpoint.transport);
      if (!transport) return;
      await this.attempt(realm, identity, endpoint, () => transport.send(endpoint, payload), 0);
    });
    await Promise.all(sends);
    return { sent: endpoints.length };
  }

  private async attempt(
    realm: string,
    identity: string,
    endpoint: PushEndpoint,
    send: () => Promise<SendResult>,
    retry: number,
  ): Promise<void> {
    let result: SendResult | null = null;
    try {
      result = await send();
    } catch (err) {
      this.deps.logger.debug({ err: (err as Error).name }, 'push transport threw');
    }
    const outcome: Outcome =
      result === null
        ? 'error'
        : result.ok
          ? 'ok'
          : result.gone
            ? 'gone'
            : result.unsafe
              ? 'unsafe'
              : result.auth
                ? 'auth'
                : 'transient';
    this.wakes.inc({ transport: endpoint.transport, outcome });
    const registry = this.directory;
    if (outcome === 'ok') {
      await registry.markOk(realm, identity, endpoint.transport, endpoint.token).catch(() => {});
      return;
    }
    if (outcome === 'gone') {
      await registry.remove(realm, identity, endpoint.transport, endpoint.token).catch(() => {});
    }
    this.warn(endpoint.transport, outcome, result?.detail);
    const retryable =
      (outcome === 'transient' && result?.retryable === true) || outcome === 'error';
    if (!retryable || !this.deps.config?.retry || retry >= PUSH_RETRY_MAX || this.closed) return;
    const base = this.deps.retryBaseMs ?? PUSH_RETRY_BASE_MS;
    const backoff = base * 2 ** retry * (0.5 + Math.random() * 0.5);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, backoff);
      timer.unref();
      this.timers.add(timer);
    });
    if (this.closed) return;
    // Still registered? A token unregistered meanwhile is not retried.
    const still = (await registry.endpoints(realm, identity).catch(() => [])).some(
      (e) => e.transport === endpoint.transport && e.token === endpoint.token,
    );
    if (!still) return;
    this.retries.inc({ transport: endpoint.transport });
    await this.attempt(realm, identity, endpoint, send, retry + 1);
  }

  /** Token-free, throttled per (transport, reason) (§6.6). */
  private warn(transport: string, reason: Outcome, detail: string | undefined): void {
    if (this.failLog.take(`${transport}\n${reason}`) === null) return;
    // `detail` is a provider reason code or a guard reason, never a token or URL.
    const suffix = detail ? ` ${detail}` : '';
    this.deps.logger.warn(`push wake failed: transport=${transport} reason=${reason}${suffix}`);
  }

  takeRegisterSlot(socket: object): boolean {
    const now = Date.now();
    const w = this.windows.get(socket);
    if (!w || now - w.start >= 60_000) {
      this.windows.set(socket, { start: now, count: 1 });
      return true;
    }
    w.count += 1;
    return w.count <= ExtensionLimit.PUSH_REGISTERS_PER_MIN;
  }

  async checkEndpointUrl(url: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const result = await isSafePushUrl(url, this.deps.config?.allowLocal ?? false);
    return result.ok ? { ok: true } : result;
  }

  noteRegistration(): void {
    if (!this.deps.clustered || this.clusterWarned) return;
    this.clusterWarned = true;
    this.deps.logger.warn(
      'push registrations are per node: a device is woken only by the node it registered on',
    );
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const t of this.deps.config?.transports.values() ?? []) t.close?.();
  }
}
