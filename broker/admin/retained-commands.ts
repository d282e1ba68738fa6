/**
 * Retained-message commands (Switchboard extensions, docs/management.md "Retained messages"):
 * browse and clear a realm's MQTT retained messages ([MQTT-3.3.1-5], [MQTT-3.3.1-6]).
 *
 * - `list_retained` `{realm, filter?, limit?, cursor?}` or `{realm, topic}`: the realm's
 *   retained messages whose topic matches the MQTT topic filter (default `#`), sorted by topic,
 *   one page at a time; with `topic` (an exact topic name) the one message, payload in full;
 * - `delete_retained` `{realm, topic}` or `{realm, filter}`: clears them the way an MQTT client
 *   would (an empty retained payload), in aedes' working copy and in the store.
 *
 * Topics are shown as the realm's clients see them: the internal realm prefix
 * (`<encodeURIComponent(realm)>/`, broker/mqtt/realm-topics.ts) never leaves the broker.
 * MQTT off (the listener is not running) → 409 `MQTT is not enabled on this broker`.
 */
import { isMqttTopicFilter, isMqttTopicName } from '../mqtt/filter-match';
import { scopeTopic, unscopeTopic } from '../mqtt/realm-topics';
import { CommandError, has, pick, realmParam, type CommandBody } from './command-types';

/** Largest `limit` of one `list_retained` page; the default is `DEFAULT_RETAINED_PAGE`. */
export const MAX_RETAINED_PAGE = 1_000;
export const DEFAULT_RETAINED_PAGE = 100;
/** Bytes of a payload shown in a listed entry (`payload`, `truncated` when cut). */
export const RETAINED_PREVIEW_BYTES = 1_024;
/** Bytes of the payload of a `{topic}` look-up (a retained message can be up to the max packet). */
export const RETAINED_FULL_BYTES = 1_048_576;
/** Longest topic or filter the commands accept (UTF-16 code units; MQTT allows 65,535 bytes). */
const MAX_TOPIC = 65_535;

/**
 * A retained packet as aedes keeps it: `topic`, `payload` (Buffer), `qos`, and on an MQTT 5
 * publish `properties` (`contentType`, `messageExpiryInterval` in seconds). Read defensively.
 */
export type RetainedPacket = { readonly [key: string]: unknown };

/** The MQTT listener's retained messages, in internal (scoped) names. */
export interface RetainedStore {
  retainedMatching(
    filters: string[],
  ): Promise<Array<{ packet: RetainedPacket; storedAt?: number }>>;
  clearRetained(topics: string[]): Promise<void>;
}

/** What the retained commands need from the broker. */
export interface RetainedServices {
  /** The running listener's retained messages; null when MQTT is not enabled. */
  store(): RetainedStore | null;
  now?: () => number;
}

/** One retained message of `list_retained`. */
export interface RetainedEntry {
  /** As the realm's clients see it (no internal prefix). */
  topic: string;
  qos: number;
  size_bytes: number;
  /** The first `RETAINED_PREVIEW_BYTES` bytes (all of them for a `{topic}` look-up). */
  payload: string;
  /** `utf8` when the whole payload is valid UTF-8, else `base64` (of the bytes shown). */
  payload_encoding: 'utf8' | 'base64';
  /** Whether `payload` is cut. */
  truncated: boolean;
  /** MQTT 5 Content Type, else null. */
  content_type: string | null;
  /** MQTT 5 Message Expiry Interval as published (seconds), else null. */
  message_expiry_interval_s: number | null;
  /** Seconds left of that interval; null without one or when stored before a restart. */
  expires_in_s: number | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Buffer): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The shown part of `payload`: valid UTF-8 as text (never cut inside a character). */
function preview(
  bytes: Buffer,
  max: number,
): Pick<RetainedEntry, 'payload' | 'payload_encoding' | 'truncated'> {
  const truncated = bytes.length > max;
  if (isUtf8(bytes)) {
    let end = Math.min(bytes.length, max);
    // Back off to the start of a character: continuation bytes are 0b10xxxxxx.
    while (truncated && end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
    return {
      payload: bytes.subarray(0, end).toString('utf8'),
      payload_encoding: 'utf8',
      truncated,
    };
  }
  return {
    payload: bytes.subarray(0, max).toString('base64'),
    payload_encoding: 'base64',
    truncated,
  };
}

function entryOf(
  packet: RetainedPacket,
  topic: string,
  storedAt: number | undefined,
  now: number,
  max: number,
): RetainedEntry {
  const raw = packet.payload;
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(typeof raw === 'string' ? raw : '');
  const properties = (packet.properties ?? {}) as {
    contentType?: unknown;
    messageExpiryInterval?: unknown;
  };
  const interval = properties.messageExpiryInterval;
  const known = typeof interval === 'number';
  return {
    topic,
    qos: typeof packet.qos === 'number' ? packet.qos : 0,
    size_bytes: bytes.length,
    ...preview(bytes, max),
    content_type: typeof properties.contentType === 'string' ? properties.contentType : null,
    message_expiry_interval_s: known ? interval : null,
    expires_in_s:
      known && storedAt !== undefined
        ? Math.max(0, interval - Math.floor((now - storedAt) / 1000))
        : null,
  };
}

function storeOf(services: RetainedServices | undefined, command: string): RetainedStore {
  if (!services) throw new CommandError(501, `${command} is not available`);
  const store = services.store();
  if (!store) throw new CommandError(409, 'MQTT is not enabled on this broker');
  return store;
}

function textParam(body: CommandBody, key: string): string | undefined {
  if (!has(body, key)) return undefined;
  const value = pick(body, key);
  if (typeof value !== 'string' || value.length > MAX_TOPIC) {
    throw new CommandError(400, `${key} must be a string`);
  }
  return value;
}

/** @throws CommandError 400 unless a valid MQTT topic filter (no `$share/`). */
function filterParam(body: CommandBody): string | undefined {
  const filter = textParam(body, 'filter');
  if (filter === undefined) return undefined;
  if (!isMqttTopicFilter(filter) || filter.startsWith('$share/')) {
    throw new CommandError(400, 'filter must be an MQTT topic filter');
  }
  return filter;
}

/** @throws CommandError 400 unless a valid MQTT topic name (no wildcards). */
function topicParam(body: CommandBody): string | undefined {
  const topic = textParam(body, 'topic');
  if (topic === undefined) return undefined;
  if (!isMqttTopicName(topic)) throw new CommandError(400, 'topic must be an MQTT topic name');
  return topic;
}

/** The realm's retained messages matching `filter`, client-visible topics, sorted. */
async function matching(
  store: RetainedStore,
  realm: string,
  filter: string,
): Promise<Array<{ packet: RetainedPacket; storedAt?: number; topic: string; internal: string }>> {
  const found = await store.retainedMatching([scopeTopic(realm, filter)]);
  const rows = [];
  for (const { packet, storedAt } of found) {
    const internal = String(packet.topic);
    const named = unscopeTopic(internal);
    // The scoped filter only reaches this realm's names; checked anyway (never leak another's).
    if (!named || named.realm !== realm) continue;
    rows.push({ packet, storedAt, topic: named.topic, internal });
  }
  return rows.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
}

/**
 * `list_retained` → `{ok, realm, filter, entries: RetainedEntry[], next_cursor}`
 * (`next_cursor`: the last topic of a full page, to pass as `cursor`; null on the last page).
 * `{realm, topic}` → the one message (`entries` empty when none), payload up to 1 MiB.
 * @throws CommandError 400 bad realm/filter/topic/limit/cursor; 409 MQTT off; 501 unavailable.
 */
export async function listRetained(
  services: RetainedServices | undefined,
  body: CommandBody,
): Promise<{ ok: true } & Record<string, unknown>> {
  const realm = realmParam(body);
  const topic = topicParam(body);
  const filter = filterParam(body) ?? '#';
  const rawLimit = pick(body, 'limit');
  const limit = rawLimit === undefined ? DEFAULT_RETAINED_PAGE : rawLimit;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > MAX_RETAINED_PAGE
  ) {
    throw new CommandError(400, `limit must be an integer from 1 to ${MAX_RETAINED_PAGE}`);
  }
  const cursor = textParam(body, 'cursor');
  const store = storeOf(services, 'list_retained');
  const now = (services!.now ?? Date.now)();
  if (topic !== undefined) {
    const rows = (await matching(store, realm, topic)).filter((r) => r.topic === topic);
    const entries = rows.map((r) =>
      entryOf(r.packet, r.topic, r.storedAt, now, RETAINED_FULL_BYTES),
    );
    return { ok: true, realm, topic, entries, next_cursor: null };
  }
  const rows = (await matching(store, realm, filter)).filter(
    (r) => cursor === undefined || r.topic > cursor,
  );
  const page = rows.slice(0, limit);
  const entries = page.map((r) =>
    entryOf(r.packet, r.topic, r.storedAt, now, RETAINED_PREVIEW_BYTES),
  );
  const next = rows.length > limit ? page[page.length - 1]!.topic : null;
  return { ok: true, realm, filter, entries, next_cursor: next };
}

/**
 * `delete_retained` `{realm, topic}` (one message) or `{realm, filter}` (every match) →
 * `{ok, realm, topic|filter, deleted}`; resolves once the store's delete is committed.
 * @throws CommandError 400 neither or both of topic/filter, or invalid; 409 MQTT off; 501.
 */
export async function deleteRetained(
  services: RetainedServices | undefined,
  body: CommandBody,
): Promise<{ ok: true } & Record<string, unknown>> {
  const realm = realmParam(body);
  const topic = topicParam(body);
  const filter = filterParam(body);
  if ((topic === undefined) === (filter === undefined)) {
    throw new CommandError(400, 'give either topic or filter');
  }
  const store = storeOf(services, 'delete_retained');
  const rows = (await matching(store, realm, topic ?? filter!)).filter(
    (r) => topic === undefined || r.topic === topic,
  );
  await store.clearRetained(rows.map((r) => r.internal));
  const named = topic !== undefined ? { topic } : { filter };
  return { ok: true, realm, ...named, deleted: rows.length };
}
