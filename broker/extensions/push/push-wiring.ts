/**
 * Wiring of push wakes (`spec/protocol-extensions.md` §6.1, §6.5), kept out of the composition
 * root: reads the environment once, logs `Push wake config invalid: <reason> — push disabled`
 * on any config error (the broker still starts), warns loudly when `TYO_MQ_PUSH_ALLOW_LOCAL`
 * is on (Note 6-D), and returns the runtime the broker holds in `ExtensionState.pushRuntime`.
 */
import type { Registry } from 'prom-client';
import type { OfflineStoredHook } from '../../delivery/delivery-hooks';
import type { Logger } from '../../logging/logger';
import type { NullTransport } from './null-transport';
import { loadPushConfig, PushConfigError, type PushConfig } from './push-config';
import type { PushDirectory, PushRegistry } from './push-registry';
import { PushService } from './push-runtime';
import type { PushRuntime } from './push-types';
import type { Resolve } from './ssrf-guard';

/** Programmatic push options (`BrokerOptions.push`), for in-process tests (§6.9). */
export interface PushOptions {
  /** The `null` transport instance (tests read `sent`, call `markGone`). */
  nullTransport?: NullTransport;
  /** DNS for the unifiedpush pre-send guard. */
  resolve?: Resolve;
  /** Provider request timeout, ms. */
  timeoutMs?: number;
  /** FCM send base URL (loopback only, §6.9). */
  fcmBaseUrl?: string;
  /** An extra CA for a local APNs TLS stub. */
  apnsCa?: string;
  /** First retry backoff, ms (Note 6-E; default 5,000). */
  retryBaseMs?: number;
  /** Called at the start of every wake; a test makes it throw (R99). */
  onWake?: () => void;
}

export interface PushWiring {
  env: Readonly<Record<string, string | undefined>>;
  options: PushOptions | undefined;
  registry: PushRegistry;
  /** Where registrations live (the per-node registry, or clustered the shared one). */
  directory: PushDirectory;
  metrics: Registry;
  logger: Logger;
  clustered: boolean;
}

/** The push runtime of one broker (never throws: a bad config disables push). */
export function createPushRuntime(w: PushWiring): PushService {
  let config: PushConfig | null = null;
  try {
    config = loadPushConfig(w.env, { ...w.options, logger: w.logger });
  } catch (err) {
    if (!(err instanceof PushConfigError)) throw err;
    w.logger.error(`Push wake config invalid: ${err.message} \u2014 push disabled`);
  }
  if (config?.allowLocal) {
    w.logger.warn(
      'TYO_MQ_PUSH_ALLOW_LOCAL is set: any client may make this broker POST to loopback services. Never set it in production',
    );
  }
  if (config) w.logger.info({ transports: [...config.transports.keys()] }, 'push wake enabled');
  const o = w.options ?? {};
  return new PushService({
    config,
    registry: w.registry,
    directory: w.directory,
    logger: w.logger,
    registry_metrics: w.metrics,
    clustered: w.clustered,
    ...(o.retryBaseMs !== undefined ? { retryBaseMs: o.retryBaseMs } : {}),
    ...(o.onWake ? { onWake: o.onWake } : {}),
  });
}

/**
 * §6.5 trigger 2: a wake of (realm, consumer name) once an offline copy's write is confirmed.
 * Never throws and never touches the write's promise chain the delivery returns (R99).
 */
export function wakeOnOfflineStore(push: PushRuntime): OfflineStoredHook {
  return (realm, consumer, stored) => {
    stored.then(
      (outcome) => {
        if (outcome.ok) push.wake(realm, consumer);
      },
      () => {},
    );
  };
}
