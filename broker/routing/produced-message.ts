/**
 * A `PRODUCE` after validation and normalisation, and the envelope built from it.
 *
 * Source: `spec/protocol-core.md` §3.5 (fields and guaranteed aliases), §8 (envelope) and
 * §9.3 (effective TTL).
 */
import type { DeliveryEnvelope } from '../../shared/protocol-events';

export interface ProducedMessage {
  realm: string;
  /** The event exactly as produced (case kept). */
  event: string;
  message: unknown;
  /** Producer name (`from`, default `ANONYMOUS`). */
  from: string;
  /** Effective TTL in seconds; `undefined` = store default, `null` = never expires. */
  ttl: number | null | undefined;
  guaranteed: boolean;
  /** `'realm'` or `'group'` for a broadcast, null otherwise. */
  broadcast: 'realm' | 'group' | null;
  group: string | null;
  enc?: unknown;
  to?: unknown;
  contentType?: unknown;
  /**
   * Who sent it: a socket.io `PRODUCE`, an MQTT `PUBLISH`, the embedding `publish`, or a
   * cluster peer (`relayedFrom`).
   */
  origin?: 'socket.io' | 'mqtt' | 'local' | 'cluster';
  /**
   * Set on a message a cluster peer relayed (its node id): routed in relay mode — no group
   * subscriptions (`spec/protocol-core.md` §17) — and never relayed again.
   */
  relayedFrom?: string;
  /**
   * Cluster (docs/cluster.md): the groups this message was given to, as `[realm, group]`
   * pairs. Filled in by routing on the origin node (when a relay is set) and carried to the
   * peers, which then serve only the other groups; absent on a message from a reference node,
   * whose peers skip groups as §17 says.
   */
  groupsServed?: [string, string][];
  /** Cluster: the origin's sequence number of the message, to spread group work over nodes. */
  relaySeq?: number;
  /**
   * Cluster: the origin's interest position when it relayed the message (`InterestSync.stamp`):
   * the receiving node sends the origin everything until it has applied that position.
   */
  relayInterest?: { epoch: string; rev: number };
  /**
   * The delivery id of `spec/protocol-extensions.md` §5.6 (SSE frames, `POST /pub`'s
   * `msg_id`), when the producer path set one; the SSE fan-out generates one otherwise.
   */
  deliveryId?: string;
  /** `performance.now()` (ms) when the broker accepted it, for the publish→deliver histogram. */
  receivedAt?: number;
}

/** The §8 envelope `{event, message, from, enc?, to?, content_type?}` of a message. */
export function buildEnvelope(msg: ProducedMessage): DeliveryEnvelope {
  const envelope: DeliveryEnvelope = { event: msg.event, message: msg.message, from: msg.from };
  if (msg.enc !== undefined) envelope.enc = msg.enc;
  if (msg.to !== undefined) envelope.to = msg.to;
  if (msg.contentType !== undefined) envelope.content_type = msg.contentType;
  return envelope;
}
