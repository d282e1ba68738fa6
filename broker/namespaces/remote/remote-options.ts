/**
 * Options of the bundled `/remote` namespace: the `remote` settings block
 * (`spec/protocol-admin.md` §12.1, §16.2), read leniently (a bad value falls back to its default
 * and never stops the broker) and live (read on every use, so hot reloads apply).
 */
import { DEFAULT_TICKET_QUOTAS, type TicketQuotas } from './ticket-store';

/** Relay rule of one event (§16.2). */
export interface RelayRule {
  from: 'agent' | 'viewer' | 'any';
  to: 'agent' | 'viewers' | 'opposite';
  /** Binary payloads (ArrayBuffer/typed arrays) are relayed as Buffers. */
  binary: boolean;
  enabled: boolean;
}

export interface RemoteOptions {
  /** Ticket lifetime, ms (default 60,000). */
  ticketTtlMs: number;
  /** Interval of the expired-ticket sweep, ms (default 60,000). */
  ticketCleanupMs: number;
  /** Built-in rules overridden by `remote.relay`. */
  relay: Record<string, RelayRule>;
  /** Unlisted events go to the opposite side unless `relay_unlisted` is `off`. */
  relayUnlisted: boolean;
  /** An unauthenticated `/remote` socket is dropped after this long, ms (hardening; 10,000). */
  authTimeoutMs: number;
  /**
   * Outstanding tickets per requesting socket / client IP / realm (issue 20: below the
   * broker-wide 10,000; defaults 16 / 100 / 1,000; `0` or a negative value ⇒ no quota).
   */
  ticketQuotas: TicketQuotas;
}

const rule = (from: RelayRule['from'], to: RelayRule['to'], binary = false): RelayRule => ({
  from,
  to,
  binary,
  enabled: true,
});

/** The built-in rule table (§16.2). */
export const DEFAULT_RELAY: Readonly<Record<string, RelayRule>> = Object.freeze({
  frame: rule('agent', 'viewers', true),
  'input.mouse': rule('viewer', 'agent'),
  'input.keyboard': rule('viewer', 'agent'),
  'input.sas': rule('viewer', 'agent'),
  'remote.setmonitor': rule('viewer', 'agent'),
  'rtc.answer': rule('viewer', 'agent'),
  'rtc.ready': rule('viewer', 'agent'),
  'rtc.offer': rule('agent', 'viewers'),
  'rtc.ice': rule('any', 'opposite'),
});

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const quota = (v: unknown, fallback: number) =>
  typeof v === 'number' && Number.isFinite(v) ? v : fallback;
const positive = (v: unknown, fallback: number) =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
const oneOf = <T extends string>(v: unknown, allowed: readonly T[], fallback: T): T =>
  allowed.includes(v as T) ? (v as T) : fallback;

/** Interprets a `remote` block (anything) into options with defaults. */
export function remoteOptions(block: unknown): RemoteOptions {
  const b = isObject(block) ? block : {};
  const relay: Record<string, RelayRule> = Object.create(null) as Record<string, RelayRule>;
  Object.assign(relay, DEFAULT_RELAY);
  if (isObject(b.relay)) {
    for (const [event, value] of Object.entries(b.relay)) {
      const base = relay[event] ?? rule('any', 'opposite');
      if (value === false) {
        relay[event] = { ...base, enabled: false };
        continue;
      }
      if (!isObject(value)) continue;
      relay[event] = {
        from: oneOf(value.from, ['agent', 'viewer', 'any'], base.from),
        to: oneOf(value.to, ['agent', 'viewers', 'opposite'], base.to),
        binary: typeof value.binary === 'boolean' ? value.binary : base.binary,
        enabled: value.enabled !== false,
      };
    }
  }
  const unlisted = b.relay_unlisted ?? b.relayUnlisted;
  return {
    ticketTtlMs: positive(b.ticket_ttl_ms ?? b.ticketTtlMs, 60_000),
    ticketCleanupMs: positive(b.ticket_cleanup_ms ?? b.ticketCleanupMs, 60_000),
    relay,
    relayUnlisted: unlisted !== 'off' && unlisted !== false,
    authTimeoutMs: positive(b.auth_timeout_ms, 10_000),
    ticketQuotas: {
      perSocket: quota(b.max_tickets_per_socket, DEFAULT_TICKET_QUOTAS.perSocket),
      perIp: quota(b.max_tickets_per_ip, DEFAULT_TICKET_QUOTAS.perIp),
      perRealm: quota(b.max_tickets_per_realm, DEFAULT_TICKET_QUOTAS.perRealm),
    },
  };
}
