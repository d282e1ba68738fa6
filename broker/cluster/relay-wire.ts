/**
 * The wire form of relayed messages on `<prefix>:messages`.
 *
 * Source: `spec/protocol-core.md` §17. Wire shape (kept for mixed clusters with reference
 * nodes): `{node_id, payload: {realm, event, message, producer, ttl, guaranteed, enc, to,
 * contentType, method, broadcast, group}}`, `method` = `"broadcast"` or null, `broadcast` =
 * `"group"` for a group broadcast. Note 17-A is fixed: `contentType` is passed on, so every
 * node builds the same envelope. Peers ignore their own wrappers, unparsable text and payloads
 * without `realm`/`event` (counted as `invalid`, logged once per 10 s at most).
 *
 * Switchboard extensions, ignored by reference nodes: `groups_served` (the `[realm, group]`
 * pairs the origin delivered to), `seq` (the origin's sequence number) and `interest` (its
 * interest position `[epoch, rev]`, streams relay) in the payload, and
 * the wrapper `{node_id, blob: <key>}` that carries a large message by reference: its payload
 * wrapper is stored at `<key>` for 60 s (see `MessageRelay`).
 */
import { z } from 'zod';
import { CLIENT_ID_PATTERN } from '../routing/delivery-id';
import type { ProducedMessage } from '../routing/produced-message';

/** Largest realm/event/producer/group name a relayed payload may carry (characters). */
const NAME_MAX = 4_096;

const RelayedPayload = z.object({
  realm: z.string().max(NAME_MAX),
  event: z.string().min(1).max(NAME_MAX),
  message: z.unknown().optional(),
  producer: z.string().max(NAME_MAX).nullish(),
  ttl: z.number().nullish(),
  guaranteed: z.boolean().nullish(),
  enc: z.unknown().optional(),
  to: z.unknown().optional(),
  contentType: z.unknown().optional(),
  method: z.string().nullish(),
  broadcast: z.unknown().optional(),
  group: z.string().max(NAME_MAX).nullish(),
  /** Switchboard extension: the groups the origin served, `[realm, group]` pairs. */
  groups_served: z
    .array(z.tuple([z.string().max(NAME_MAX), z.string().max(NAME_MAX)]))
    .max(10_000)
    .optional(),
  /** Switchboard extension: the delivery id (SSE `id:`; extensions §5.6, Note 5-D). */
  id: z.string().regex(CLIENT_ID_PATTERN).optional(),
  /** Switchboard extension: the origin's sequence number of the message. */
  seq: z.number().int().nonnegative().optional(),
  /** Switchboard extension: the origin's interest position `[epoch, rev]` (interest-sync.ts). */
  interest: z.tuple([z.string().max(64), z.number().int().nonnegative()]).optional(),
});

const NodeId = z.string().min(1).max(128);
const RelayedWrapper = z.object({ node_id: NodeId, payload: RelayedPayload });
const BlobWrapper = z.object({ node_id: NodeId, blob: z.string().min(1).max(NAME_MAX) });

/** A wrapper that points at a stored large message (`MessageRelay` fetches it). */
export interface BlobRef {
  blob: string;
}

const ownPrefixes = new Map<string, string>();
/** The start of every wrapper `nodeId` writes: `{"node_id":<id>,`. */
function ownPrefix(nodeId: string): string {
  let prefix = ownPrefixes.get(nodeId);
  if (prefix === undefined) {
    prefix = `{"node_id":${JSON.stringify(nodeId)},`;
    ownPrefixes.set(nodeId, prefix);
  }
  return prefix;
}

/** The blob wrapper `{node_id, blob}` of a large message stored at `key`. */
export function blobText(nodeId: string, key: string): string {
  return JSON.stringify({ node_id: nodeId, blob: key });
}

/**
 * The relay wrapper of `msg` as JSON text (§17). `ttl` is the effective TTL in seconds (§9.3):
 * the message's, else `defaultTtl` (this node's store default); null = never expires.
 */
export function relayText(
  nodeId: string,
  msg: ProducedMessage,
  defaultTtl: number,
  seq?: number,
  interest?: { epoch: string; rev: number },
): string {
  return JSON.stringify({
    node_id: nodeId,
    payload: {
      realm: msg.realm,
      event: msg.event,
      message: msg.message,
      producer: msg.from,
      ttl: msg.ttl === undefined ? defaultTtl : msg.ttl,
      guaranteed: msg.guaranteed,
      enc: msg.enc ?? null,
      to: msg.to ?? null,
      contentType: msg.contentType ?? null,
      method: msg.broadcast === null ? null : 'broadcast',
      broadcast: msg.broadcast === 'group' ? 'group' : msg.broadcast === 'realm' ? true : null,
      group: msg.group,
      // Extensions (reference nodes ignore them): which groups still need a node (docs/cluster.md).
      groups_served: msg.groupsServed ?? [],
      seq,
      ...(msg.deliveryId !== undefined ? { id: msg.deliveryId } : {}),
      ...(interest ? { interest: [interest.epoch, interest.rev] } : {}),
    },
  });
}

/**
 * Parses a peer's wrapper into a message to route, or a `BlobRef` to fetch it from, or returns
 * `'own'` (this node's), or `null` (invalid). A missing `ttl` means this node's store default, null never expires.
 */
export function parseRelayed(
  nodeId: string,
  text: string,
): ProducedMessage | BlobRef | 'own' | null {
  // Redis sends every node its own messages back: recognised by the prefix this node writes
  // (`node_id` first), without parsing them.
  if (text.startsWith(ownPrefix(nodeId))) return 'own';
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  // A failed zod parse is costly: try the blob form only for what looks like one.
  if (typeof raw === 'object' && raw !== null && 'blob' in raw) {
    const blob = BlobWrapper.safeParse(raw);
    if (!blob.success) return null;
    return blob.data.node_id === nodeId ? 'own' : { blob: blob.data.blob };
  }
  const parsed = RelayedWrapper.safeParse(raw);
  if (!parsed.success) return null;
  const { node_id: from, payload: p } = parsed.data;
  if (from === nodeId) return 'own';
  const broadcast =
    p.method === 'broadcast'
      ? p.broadcast === 'group' && typeof p.group === 'string' && p.group !== ''
        ? 'group'
        : 'realm'
      : null;
  const msg: ProducedMessage = {
    realm: p.realm,
    event: p.event,
    message: p.message,
    from: p.producer ?? 'ANONYMOUS',
    ttl: p.ttl === undefined ? undefined : p.ttl,
    guaranteed: p.guaranteed === true,
    broadcast,
    group: p.group ?? null,
    origin: 'cluster',
    relayedFrom: from,
  };
  if (p.enc !== null && p.enc !== undefined) msg.enc = p.enc;
  if (p.to !== null && p.to !== undefined) msg.to = p.to;
  if (p.contentType !== null && p.contentType !== undefined) msg.contentType = p.contentType;
  if (p.id !== undefined) msg.deliveryId = p.id;
  if (p.interest) msg.relayInterest = { epoch: p.interest[0], rev: p.interest[1] };
  if (p.groups_served && p.seq !== undefined) {
    msg.groupsServed = p.groups_served;
    msg.relaySeq = p.seq;
  }
  return msg;
}
