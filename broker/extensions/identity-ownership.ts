/**
 * Identity ownership for the acting extension events (`spec/protocol-extensions.md` §1.5),
 * with the Fix of Note 1.5-A in full, and the same binding for `consumer_id` on `SUBSCRIBE`
 * (issue 28: no client drains another identity's durable queue). Every family calls
 * `ownsIdentity` before acting and `pinIdentity` after its first success; docs/e2ee.md.
 *
 * An identity is owned by a socket when all three hold:
 *  1. the name was registered on this socket by `CONSUMER` or `PRODUCER`
 *     (`socket.data.registeredNames`; implicit bindings by `SUBSCRIBE`/`PRODUCE` do not count);
 *  2. the realm's consumer or producer entry for the name is bound to this very socket now
 *     (core §5.1): a socket that lost the name to another one also lost the right to act.
 *     Before any pin, an entry of the name held by *another* live socket makes it contested
 *     and neither may act (Switchboard decision: a second socket's `PRODUCER {name}` must not
 *     take over a connected consumer's identity);
 *  3. principal pinning: once a socket with a principal (SHA-256 hex of its token) succeeded
 *     in an acting event for (realm, identity), only that principal may act as it; a socket
 *     without a principal then fails too. Before any pin, and in deployments where sockets
 *     have no principal (auth off, open realms, role-declared admission), an identity is
 *     first-come, as in the reference.
 */
import type { HandlerContext } from '../handlers/handler-context';
import type { BrokerSocket } from '../transport/socket-types';

/** Whether `socket` may act as `identity` in its realm now (conditions 1–3 above). */
export function ownsIdentity(ctx: HandlerContext, socket: BrokerSocket, identity: string): boolean {
  const data = socket.data;
  if (!data.registeredNames.has(identity)) return false;
  const realm = ctx.realms.get(data.realm);
  if (!realm) return false;
  const consumer = realm.consumers.get(identity)?.socket ?? null;
  const producer = realm.producer(identity)?.socket ?? null;
  if (consumer !== socket && producer !== socket) return false;
  const pin = ctx.extensions.pins.get(data.realm, identity);
  if (pin !== undefined) return pin === data.principal;
  // Unpinned, the name is contested when another live socket holds its other entry (the
  // verified attack: `PRODUCER {name:"alice"}` while consumer alice is connected). Neither
  // side may act then: the newcomer cannot take the identity over, at worst block it.
  return !liveOther(consumer, socket) && !liveOther(producer, socket);
}

/**
 * Clustered: whether the cluster-wide pin of (socket realm, identity) admits the socket's
 * principal, claiming it for that principal when unpinned (Note 1.5-A: the first principal on
 * any node wins; `key-directory-sync.ts`). A node need not have seen a pin another node
 * claimed, so every acting family checks this after `ownsIdentity`. True on a single node, and
 * with the local pin when Redis cannot be reached (the node keeps serving).
 */
export async function clusterPinAllows(
  ctx: HandlerContext,
  socket: BrokerSocket,
  identity: string,
): Promise<boolean> {
  const sync = ctx.extensions.sync;
  if (!sync) return true;
  const pin = await sync.claimPin(socket.data.realm, identity, socket.data.principal);
  return pin === null || pin === socket.data.principal;
}

function liveOther(holder: BrokerSocket | null, socket: BrokerSocket): boolean {
  return holder !== null && holder !== socket && holder.connected;
}

/**
 * Records the socket's principal as the pin of (realm, identity) after a successful acting
 * event, when there is none yet and the socket has one. Resolves once committed (at once when
 * nothing changes); rejects when the store could not commit it (the pin holds in memory).
 */
export function pinIdentity(
  ctx: HandlerContext,
  socket: BrokerSocket,
  identity: string,
): Promise<void> {
  const { realm, principal } = socket.data;
  if (principal === null || ctx.extensions.pins.get(realm, identity) !== undefined) {
    return Promise.resolve();
  }
  ctx.logger.info({ socket: socket.id, realm }, 'identity pinned to its principal');
  return ctx.extensions.pins.set(realm, identity, principal);
}

/**
 * Why `SUBSCRIBE` may not use `consumerId` as its durable queue identity on `socket`, or null
 * when it may: the identity is bound, as a consumer, to another live socket, or it is pinned
 * to another principal. A client subscribing under its own consumer name (what every stock
 * client does) always passes.
 */
export function consumerIdRefusal(
  ctx: HandlerContext,
  socket: BrokerSocket,
  consumerId: string,
): string | null {
  const data = socket.data;
  const holder = ctx.realms.get(data.realm)?.consumers.get(consumerId)?.socket;
  if (holder && holder !== socket && holder.connected) {
    return `consumer_id '${consumerId}' is bound to another connection`;
  }
  const pin = ctx.extensions.pins.get(data.realm, consumerId);
  if (pin !== undefined && pin !== data.principal) {
    return `consumer_id '${consumerId}' belongs to another principal`;
  }
  return null;
}
