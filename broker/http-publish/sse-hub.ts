/**
 * The SSE stream registry and fan-out (`spec/protocol-extensions.md` §5.5–§5.7): a router tap
 * that sees every routed message (socket.io `PRODUCE` and `PRODUCE_CHUNK`, `POST /pub`,
 * broadcasts, messages relayed by a cluster peer), writes it to the streams on exactly its
 * (realm, event), and records guaranteed ones in the SSE history while the feature is on.
 * Also the per-realm and per-IP stream counts (§5.5 rows 8–9).
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Counter, type Registry } from 'prom-client';
import type { ClientSse } from '../../shared/http-api';
import { MetricName } from '../../shared/metric-names';
import type { Logger } from '../logging/logger';
import { newDeliveryId } from '../routing/delivery-id';
import type { ProducedMessage } from '../routing/produced-message';
import type { HttpPublishSettings } from './http-publish-schema';
import type { HttpPrincipal } from './http-reply';
import { SseHistory } from './sse-history';
import { SseStream } from './sse-stream';

/** The frame object of §5.5, keys in the spec's order, as one JSON line. */
export function frameOf(msg: ProducedMessage): string {
  const frame: Record<string, unknown> = {
    event: msg.event,
    data: msg.message,
    producer: msg.from,
  };
  if (msg.enc !== undefined) frame.enc = msg.enc;
  if (msg.to !== undefined) frame.to = msg.to;
  if (msg.contentType !== undefined) frame.content_type = msg.contentType;
  return JSON.stringify(frame);
}

const keyOf = (realm: string, event: string) => `${realm}\u0000${event}`;

export interface SseHubDeps {
  settings: () => HttpPublishSettings;
  enabled: () => boolean;
  /** The store default TTL in seconds (core §9.3), for history rows without a TTL. */
  defaultTtlS: () => number;
  registry: Registry;
  logger: Logger;
  /** Told when a realm gets its first stream or loses its last (the router's tap interest). */
  interestChanged?: () => void;
}

export class SseHub {
  readonly history = new SseHistory();
  private readonly streams = new Map<string, Set<SseStream>>();
  private readonly perRealm = new Map<string, number>();
  private readonly perIp = new Map<string, number>();
  /** When a stream on (realm, event) was last open (epoch ms), for `history: "subscribed"`. */
  private readonly lastOpen = new Map<string, number>();
  private readonly opened: Counter<'realm'>;

  constructor(private readonly deps: SseHubDeps) {
    this.opened = new Counter({
      name: MetricName.SSE_CONNECTIONS_TOTAL,
      help: 'SSE streams opened (GET /sub), by realm',
      labelNames: ['realm'],
      registers: [deps.registry],
    });
  }

  /**
   * The streams open on this node per realm, for `GET /api/clients` (`sse`): event, when
   * opened, and the principal's role. Never the token, its hash or the client's address.
   */
  list(): Map<string, ClientSse[]> {
    const out = new Map<string, ClientSse[]>();
    for (const set of this.streams.values()) {
      for (const stream of set) {
        let list = out.get(stream.realm);
        if (!list) out.set(stream.realm, (list = []));
        list.push({
          event: stream.event,
          opened_at: stream.openedAt,
          role: stream.principal.role || 'both',
        });
      }
    }
    return out;
  }

  /** Streams open on this node. */
  get size(): number {
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  /** Whether `realm` has a stream here (the router tap's interest: relayed messages). */
  readonly hasRealm = (realm: string): boolean => this.perRealm.has(realm);

  /** Realms with a stream here. */
  readonly realms = (): Iterable<string> => this.perRealm.keys();

  /** The §5.5 cap refused for (realm, ip), or null when a stream may open. */
  capRefusal(realm: string, ip: string): { status: 503 | 429; message: string } | null {
    const s = this.deps.settings();
    if ((this.perRealm.get(realm) ?? 0) >= s.sse_max_per_realm) {
      return { status: 503, message: 'realm SSE connection limit reached' };
    }
    if ((this.perIp.get(ip) ?? 0) >= s.sse_max_per_ip) {
      return { status: 429, message: 'per-IP SSE connection limit reached' };
    }
    return null;
  }

  /** Registers a stream whose headers and `: ok` are already written. */
  open(
    realm: string,
    event: string,
    ip: string,
    principal: HttpPrincipal,
    res: ServerResponse,
  ): SseStream {
    const stream = new SseStream(
      realm,
      event,
      ip,
      principal,
      res,
      this.deps.settings().sse_keepalive_ms,
      (s, reason) => this.removed(s, reason),
    );
    const key = keyOf(realm, event);
    let set = this.streams.get(key);
    if (!set) this.streams.set(key, (set = new Set()));
    set.add(stream);
    this.perRealm.set(realm, (this.perRealm.get(realm) ?? 0) + 1);
    if (this.perRealm.get(realm) === 1) this.deps.interestChanged?.();
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    this.lastOpen.set(key, Date.now());
    this.opened.inc({ realm });
    return stream;
  }

  /** Router tap: fan-out to exact (realm, event) streams, and the history (§5.6, §5.7). */
  readonly routed = (msg: ProducedMessage): void => {
    // The common case — no stream on the event, nothing to record — costs one map lookup.
    if (this.streams.size === 0 && !msg.guaranteed) return;
    const key = keyOf(msg.realm, msg.event);
    const set = this.streams.get(key);
    const record = msg.guaranteed && msg.relayedFrom === undefined && this.deps.enabled();
    if (!set && !record) return;
    // Note 5-D: the id made here travels in the relay (routing relays after the taps), so
    // every node shows one id; a peer's message without one (a reference node) gets `sse-…`.
    if (msg.deliveryId === undefined && msg.relayedFrom === undefined)
      msg.deliveryId = newDeliveryId();
    const id = msg.deliveryId ?? `sse-${randomBytes(8).toString('hex')}`;
    const frame = frameOf(msg);
    if (set) for (const stream of set) stream.deliver(id, frame);
    if (record) this.remember(msg, key, id, frame);
  };

  /** Every open stream. */
  *all(): Iterable<SseStream> {
    for (const set of [...this.streams.values()]) yield* [...set];
  }

  /** Closes every stream (the flag went off, Note 5-G; or the broker stops). */
  closeAll(reason: string): void {
    for (const set of [...this.streams.values()]) for (const s of [...set]) s.close(reason);
  }

  /** Closes the streams of `realm` (realm removed, Note 5-G) and drops its history. */
  closeRealm(realm: string): void {
    for (const set of [...this.streams.values()])
      for (const s of [...set]) if (s.realm === realm) s.close('realm removed');
    this.history.dropRealm(realm);
  }

  private remember(msg: ProducedMessage, key: string, id: string, frame: string): void {
    const now = Date.now();
    const ttlS = msg.ttl === undefined ? this.deps.defaultTtlS() : msg.ttl;
    const ttlMs = ttlS === null ? Infinity : ttlS * 1000;
    if (this.deps.settings().history === 'subscribed') {
      const last = this.streams.has(key) ? now : this.lastOpen.get(key);
      if (last === undefined || now - last > ttlMs) return;
    }
    this.history.record(msg.realm, msg.event, { id, frame, expiresAt: now + ttlMs });
  }

  private removed(stream: SseStream, reason: string): void {
    const key = keyOf(stream.realm, stream.event);
    const set = this.streams.get(key);
    if (!set?.delete(stream)) return;
    if (set.size === 0) this.streams.delete(key);
    this.lastOpen.set(key, Date.now());
    const dec = (m: Map<string, number>, k: string) => {
      const n = (m.get(k) ?? 1) - 1;
      if (n <= 0) m.delete(k);
      else m.set(k, n);
    };
    dec(this.perRealm, stream.realm);
    if (!this.perRealm.has(stream.realm)) this.deps.interestChanged?.();
    dec(this.perIp, stream.ip);
    this.deps.logger.debug(
      { realm: stream.realm, event: stream.event, reason },
      'SSE stream closed',
    );
  }
}
