/**
 * Push configuration from the environment (`spec/protocol-extensions.md` §6.1), read once when
 * the broker is created. `TYO_MQ_PUSH_TRANSPORT` lists the transports (trimmed, empty entries
 * dropped, a repeated name counted once); unset or empty means push is off (null). Any error
 * throws `PushConfigError` with the spec's text; the caller disables push as a whole.
 *
 * Transports built here: `null`, `unifiedpush`. `fcm` and `apns` are not built yet in this
 * release: listing them is a config error (push disabled, logged), never a silent no-op.
 */
import { NullTransport } from './null-transport';
import type { PushTransport } from './push-types';
import { UnifiedPushTransport } from './unifiedpush-transport';
import type { Resolve } from './ssrf-guard';

export class PushConfigError extends Error {}

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
    } else {
      throw new PushConfigError(`push transport '${name}' is not available in this build`);
    }
  }
  return { transports, allowLocal, retry: envFlag(env.TYO_MQ_PUSH_RETRY) };
}
