/**
 * Push configuration from the environment (`spec/protocol-extensions.md` §6.1), read once when
 * the broker is created. `TYO_MQ_PUSH_TRANSPORT` lists the transports (trimmed, empty entries
 * dropped, a repeated name counted once); unset or empty means push is off (null). Any error
 * throws `PushConfigError` with the spec's text; the caller disables push as a whole.
 *
 * Transports: `null`, `unifiedpush`, `fcm`, `apns`. Provider URL overrides (§6.9:
 * `TYO_MQ_PUSH_FCM_BASE_URL`, `TYO_MQ_PUSH_APNS_PRODUCTION_URL`, `_SANDBOX_URL`) must name a
 * loopback host, so they can only point at local stubs; each logs a warning.
 */
import { isLoopbackHost } from '../../../shared/loopback';
import type { Logger } from '../../logging/logger';
import { loadApnsOptions } from './apns-config';
import { ApnsTransport } from './apns-transport';
import { loadFcmProjects } from './fcm-credentials';
import { FcmTransport } from './fcm-transport';
import { NullTransport } from './null-transport';
import { PushConfigError } from './push-types';
import type { PushTransport } from './push-types';
import { UnifiedPushTransport } from './unifiedpush-transport';
import type { Resolve } from './ssrf-guard';

export { PushConfigError };

export interface PushConfig {
  /** Name → transport, in list order; looked up by own key only (§6.6 step 4). */
  readonly transports: ReadonlyMap<string, PushTransport>;
  /** `TYO_MQ_PUSH_ALLOW_LOCAL` with `unifiedpush` listed (R123). */
  readonly allowLocal: boolean;
  /** `TYO_MQ_PUSH_RETRY` (Note 6-E): retry transient failures with backoff. */
  readonly retry: boolean;
}

/** Programmatic options (§6.9: equivalent constructor options exist for in-process tests). */
export interface PushConfigOptions {
  /** The `null` transport instance to use (tests read what it recorded). */
  nullTransport?: NullTransport;
  /** DNS for the unifiedpush pre-send guard. */
  resolve?: Resolve;
  /** Provider request timeout, ms (default PUSH_HTTP_TIMEOUT_MS). */
  timeoutMs?: number;
  /** An extra CA for a local APNs TLS stub (tests). */
  apnsCa?: string;
  /** FCM send base URL (§6.9's constructor option; loopback only, like the variable). */
  fcmBaseUrl?: string;
  /** For the transports' own token-free warnings (FCM no-project) and override warnings. */
  logger?: Logger;
}

/** §6.9: a provider URL override, accepted only for a loopback host. */
export function loopbackOverride(value: string, variable: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PushConfigError(`${variable} is not a URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopbackHost(url.hostname)) {
    throw new PushConfigError(`${variable} may only point at a loopback host`);
  }
  return url.origin;
}

const KNOWN = new Set(['null', 'unifiedpush', 'fcm', 'apns']);

/** §6.1: `1`, `true`, `yes`, `on`, case-insensitive and trimmed. */
export function envFlag(value: string | undefined): boolean {
  return ['1', 'true', 'yes', 'on'].includes((value ?? '').trim().toLowerCase());
}

/** R122: the listed names, trimmed, empty ones dropped, duplicates once (later wins). */
export function transportNames(value: string | undefined): string[] {
  const names = (value ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const out: string[] = [];
  for (const n of names) {
    const at = out.indexOf(n);
    if (at >= 0) out.splice(at, 1);
    out.push(n);
  }
  return out;
}

/** The push config of `env`, or null when push is off; throws `PushConfigError`. */
export function loadPushConfig(
  env: Readonly<Record<string, string | undefined>>,
  options: PushConfigOptions = {},
): PushConfig | null {
  const names = transportNames(env.TYO_MQ_PUSH_TRANSPORT);
  if (names.length === 0) return null;
  for (const n of names)
    if (!KNOWN.has(n)) throw new PushConfigError(`unknown push transport: ${n}`);
  const allowLocal = names.includes('unifiedpush') && envFlag(env.TYO_MQ_PUSH_ALLOW_LOCAL);
  const transports = new Map<string, PushTransport>();
  for (const name of names) {
    if (name === 'null') transports.set(name, options.nullTransport ?? new NullTransport());
    else if (name === 'unifiedpush') {
      transports.set(
        name,
        new UnifiedPushTransport({
          allowLocal,
          ...(options.resolve ? { resolve: options.resolve } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        }),
      );
    } else if (name === 'fcm') {
      const override = options.fcmBaseUrl ?? env.TYO_MQ_PUSH_FCM_BASE_URL;
      const baseUrl = override ? loopbackOverride(override, 'TYO_MQ_PUSH_FCM_BASE_URL') : undefined;
      if (baseUrl) options.logger?.warn('FCM send URL overridden to a loopback stub');
      transports.set(
        name,
        new FcmTransport({
          ...loadFcmProjects(env),
          ...(baseUrl ? { baseUrl } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          logger: options.logger ?? silentLogger,
        }),
      );
    } else {
      const apns = loadApnsOptions(env, loopbackOverride);
      if (apns.productionUrl || apns.sandboxUrl) {
        options.logger?.warn('APNs authority overridden to a loopback stub');
      }
      transports.set(
        name,
        new ApnsTransport({
          ...apns,
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          ...(options.apnsCa !== undefined ? { ca: options.apnsCa } : {}),
        }),
      );
    }
  }
  return { transports, allowLocal, retry: envFlag(env.TYO_MQ_PUSH_RETRY) };
}

/** A logger that drops everything (direct callers that pass none). */
const silentLogger = {
  warn: () => {},
  info: () => {},
  error: () => {},
  debug: () => {},
} as unknown as Logger;
