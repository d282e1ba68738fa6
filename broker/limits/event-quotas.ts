/**
 * The per-event limits of `spec/protocol-admin.md` §11.3, checked before an event is parsed
 * (§6.4): `messages_per_second` / `message_burst` and `bytes_per_second` / `bytes_burst` on
 * `PRODUCE` and each `PRODUCE_CHUNK` (the buckets are the client's, shared by its connections:
 * `shared-buckets.ts`), and the registration and subscription quotas (`retry_after` 60 s).
 * Bursts default to 3 × the message rate and 2 × the byte rate.
 */
import { ClientEvent, type ClientEventName } from '../../shared/protocol-events';
import type { RealmDirectory } from '../routing/realm-directory';
import type { LimitsConfig } from './limits-config';
import { QUOTA_RETRY_S, type Refusal } from './refusal';
import type { ClientBuckets, SharedBuckets } from './shared-buckets';
import { TokenBucket } from './token-bucket';

/** What the quotas read and count of one socket (`LimitsService`'s per-socket state). */
export interface QuotaState {
  ip: string;
  realm: string;
  /** The credential key that admitted it; null ⇒ keyed by realm and IP. */
  credential: string | null;
  /** The client's shared buckets, taken on the first message (null until then / after a re-key). */
  client: ClientBuckets | null;
  registrations: number;
  subscriptions: number;
}

/**
 * The key of a client's shared buckets in `realm`: its credential (a token digest, a JWT
 * subject…), else its IP. Connections with the same key share one message and byte bucket.
 */
export function clientKey(realm: string, credential: string | null, ip: string): string {
  return credential === null ? `${realm}\nip:${ip}` : `${realm}\n${credential}`;
}

function utf8Length(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return 1;
  }
}

function field(raw: unknown, key: string): unknown {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

export class EventQuotas {
  constructor(
    private readonly config: LimitsConfig,
    private readonly realms: RealmDirectory,
    private readonly clients: SharedBuckets,
    private readonly now: () => number,
  ) {}

  /** The message and byte rates of a `PRODUCE` / `PRODUCE_CHUNK` (`raw` unparsed). */
  message(st: QuotaState, event: ClientEventName, raw: unknown): Refusal | null {
    const now = this.now();
    // Taken once per socket (and after a re-key): the message path itself does no lookup.
    const client =
      st.client ??
      (st.client = this.clients.acquire(clientKey(st.realm, st.credential, st.ip), now));
    // Rates read one by one (no `{rate, burst}` object per message).
    const msgRate = this.config.value('messages_per_second', st.realm);
    if (msgRate !== undefined) {
      const burst = this.config.value('message_burst', st.realm) ?? 3 * msgRate;
      client.messages ??= new TokenBucket(burst, now);
      const r = client.messages.take(1, msgRate, burst, now);
      if (!r.ok) return { reason: 'messages_per_second', retryAfter: r.retryAfter };
    }
    const byteRate = this.config.value('bytes_per_second', st.realm);
    if (byteRate !== undefined) {
      const burst = this.config.value('bytes_burst', st.realm) ?? 2 * byteRate;
      const payload =
        event === ClientEvent.PRODUCE_CHUNK && typeof raw === 'object' ? field(raw, 'data') : raw;
      const cost = Math.max(1, utf8Length(payload));
      client.bytes ??= new TokenBucket(burst, now);
      const r = client.bytes.take(cost, byteRate, burst, now);
      if (!r.ok) return { reason: 'bytes_per_second', retryAfter: r.retryAfter };
    }
    return null;
  }

  /** The registration quotas of a `PRODUCER` / `CONSUMER`; counts it when admitted. */
  registration(st: QuotaState, event: ClientEventName, raw: unknown): Refusal | null {
    const perSocket = this.config.value('max_registrations_per_socket', st.realm);
    if (perSocket !== undefined && st.registrations >= perSocket) {
      return { reason: 'max_registrations_per_socket', retryAfter: QUOTA_RETRY_S };
    }
    const perRealm = this.config.value('max_registrations_per_realm', st.realm);
    if (perRealm !== undefined) {
      const registry = this.realms.get(st.realm);
      const count = registry ? registry.producers.size + registry.consumers.size : 0;
      const name = field(raw, 'name');
      // A name already registered (a reconnect) does not grow the registry.
      const known =
        typeof name === 'string' &&
        (event === ClientEvent.PRODUCER ? registry?.producers : registry?.consumers)?.has(name);
      if (!known && count >= perRealm) {
        return { reason: 'max_registrations_per_realm', retryAfter: QUOTA_RETRY_S };
      }
    }
    st.registrations++;
    return null;
  }

  /** The subscription quotas of a `SUBSCRIBE`; counts it when admitted. */
  subscription(st: QuotaState): Refusal | null {
    // Default 1,000 without a block (DEFAULT_BOUNDS): one socket cannot hold unbounded memory.
    const perSocket = this.config.bound('max_subscriptions_per_socket', st.realm);
    if (perSocket !== undefined && st.subscriptions >= perSocket) {
      return { reason: 'max_subscriptions_per_socket', retryAfter: QUOTA_RETRY_S };
    }
    const perRealm = this.config.value('max_subscriptions_per_realm', st.realm);
    if (perRealm !== undefined) {
      let count = 0;
      for (const byConsumer of this.realms.get(st.realm)?.subscriptions.values() ?? []) {
        count += byConsumer.size;
      }
      if (count >= perRealm) {
        return { reason: 'max_subscriptions_per_realm', retryAfter: QUOTA_RETRY_S };
      }
    }
    st.subscriptions++;
    return null;
  }
}
