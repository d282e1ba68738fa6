/**
 * The live view of the `limits` block (`spec/protocol-admin.md` §11.1): enabled when present and
 * not `enabled: false`; numeric values absent, 0, negative or non-numeric mean unlimited;
 * `limits.realms[<realm>][<key>]` beats the global value (a present override of 0 lifts a global
 * limit); the block is re-read at most once per second, so a hot reload applies within 1 s.
 */
import { proxyTrust, type ProxyTrust } from './client-address';
import type { LimitsBlock } from './limits-schema';

/** The numeric keys of §11.3 plus Switchboard's extensions (see `limits-schema.ts`). */
export type LimitKey =
  | 'max_connections_per_ip'
  | 'connections_per_minute_per_ip'
  | 'max_connections_per_realm'
  | 'messages_per_second'
  | 'message_burst'
  | 'bytes_per_second'
  | 'bytes_burst'
  | 'max_registrations_per_socket'
  | 'max_registrations_per_realm'
  | 'max_subscriptions_per_socket'
  | 'max_subscriptions_per_realm'
  | 'max_queued_per_realm'
  | 'max_queued_per_consumer'
  | 'expire_durable_after_ms'
  | 'realms_per_hour_per_ip'
  | 'max_pending_authorization_requests'
  | 'max_pending_authorization_requests_per_realm'
  | 'max_pending_authorization_requests_per_ip'
  | 'pre_auth_events'
  | 'pre_auth_bytes';

/** Pre-auth budget when the block does not set one (events; payload bytes). */
export const DEFAULT_PRE_AUTH_EVENTS = 64;
export const DEFAULT_PRE_AUTH_BYTES = 1024 * 1024;

/**
 * Memory bounds on tables keyed by client input (issue 20 items 4 and 9; docs/limits.md "Default
 * bounds"). Unlike the other §11 keys these apply **without** a `limits` block and with
 * `enabled: false`; a value set in the block (or a realm override) replaces the default, and a
 * value ≤ 0 lifts it. Per-realm and per-IP quotas sit below the broker-wide cap, so one client
 * cannot take a whole table from everyone else.
 */
export const DEFAULT_BOUNDS = Object.freeze({
  max_subscriptions_per_socket: 1_000,
  max_pending_authorization_requests: 1_000,
  max_pending_authorization_requests_per_realm: 500,
  max_pending_authorization_requests_per_ip: 100,
  max_queued_per_consumer: 100_000,
});

export type BoundKey = keyof typeof DEFAULT_BOUNDS;

/** How long a read of the block is reused (ms, §11.1). */
export const REREAD_MS = 1_000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Json, k: string): unknown =>
  Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;

/** A limit value as a positive finite number, or undefined for "unlimited". */
export function toLimit(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

export class LimitsConfig {
  private block: Json | null = null;
  /** The block as read, even when `enabled: false` (the default bounds read it). */
  private rawBlock: Json | null = null;
  private off = false;
  private readAt = -Infinity;
  private trust: { value: unknown; key: string; trust: ProxyTrust } | null = null;

  /**
   * @param read returns the current `limits` block (a settings getter, so hot reloads show).
   * @param now clock in epoch ms (tests).
   */
  constructor(
    private readonly read: () => LimitsBlock | Json | undefined | null,
    private readonly now: () => number = Date.now,
  ) {}

  private current(): Json | null {
    const now = this.now();
    if (now - this.readAt >= REREAD_MS) {
      const b = this.read();
      this.off = isObject(b) && b.enabled === false;
      this.block = isObject(b) && !this.off ? b : null;
      this.rawBlock = isObject(b) ? b : null;
      this.readAt = now;
    }
    return this.block;
  }

  /** Whether a `limits` block is present and not `enabled: false`. */
  get enabled(): boolean {
    return this.current() !== null;
  }

  /** Whether `enabled: false` is set explicitly (turns off the pre-auth defaults too). */
  get disabledExplicitly(): boolean {
    this.current();
    return this.off;
  }

  /** The raw value of `key` for `realm` (override first), before interpretation. */
  private raw(key: LimitKey, realm?: string): unknown {
    const b = this.current();
    if (!b) return undefined;
    if (realm !== undefined) {
      const realms = own(b, 'realms');
      const r = isObject(realms) ? own(realms, realm) : undefined;
      if (isObject(r) && own(r, key) !== undefined) return own(r, key);
    }
    return own(b, key);
  }

  /** The effective limit, or undefined when unlimited or disabled. */
  value(key: LimitKey, realm?: string): number | undefined {
    return toLimit(this.raw(key, realm));
  }

  /**
   * A default bound (`DEFAULT_BOUNDS`): the block's value for `realm` (override first) when set,
   * even under `enabled: false` (≤ 0 or non-numeric ⇒ unlimited); the default otherwise.
   */
  bound(key: BoundKey, realm?: string): number | undefined {
    this.current();
    const b = this.rawBlock;
    if (b !== null) {
      if (realm !== undefined) {
        const realms = own(b, 'realms');
        const r = isObject(realms) ? own(realms, realm) : undefined;
        if (isObject(r) && own(r, key) !== undefined) return toLimit(own(r, key));
      }
      if (own(b, key) !== undefined) return toLimit(own(b, key));
    }
    return DEFAULT_BOUNDS[key];
  }

  /** `{rate, burst}` of a bucket pair (`burst` defaults to `factor × rate`), or undefined. */
  bucket(
    rateKey: LimitKey,
    burstKey: LimitKey,
    factor: number,
    realm?: string,
  ): { rate: number; burst: number } | undefined {
    const rate = this.value(rateKey, realm);
    if (rate === undefined) return undefined;
    return { rate, burst: this.value(burstKey, realm) ?? factor * rate };
  }

  /** The pre-auth budget: defaults apply without a block; `enabled:false` or ≤ 0 disables. */
  preAuth(): { events: number | undefined; bytes: number | undefined } {
    if (this.disabledExplicitly) return { events: undefined, bytes: undefined };
    const b = this.current() ?? {};
    const pick = (key: LimitKey, fallback: number) =>
      own(b, key) === undefined ? fallback : toLimit(own(b, key));
    return {
      events: pick('pre_auth_events', DEFAULT_PRE_AUTH_EVENTS),
      bytes: pick('pre_auth_bytes', DEFAULT_PRE_AUTH_BYTES),
    };
  }

  /**
   * The proxies `trust_proxy` / `trustProxy` trusts (none without a block, as §11.1 says the
   * header is read only while limits are enabled). Rebuilt only when the value changes.
   */
  get trustProxy(): ProxyTrust {
    const b = this.current();
    const value = b === null ? false : (own(b, 'trust_proxy') ?? own(b, 'trustProxy') ?? false);
    if (this.trust?.value === value) return this.trust.trust;
    const key = JSON.stringify(value) ?? 'false';
    if (this.trust?.key !== key) this.trust = { value, key, trust: proxyTrust(value) };
    else this.trust.value = value;
    return this.trust.trust;
  }
}
