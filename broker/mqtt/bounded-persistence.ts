/**
 * aedes' in-memory persistence with a bound on inbound QoS 2 receipts per connection, the
 * base of Switchboard's MQTT persistences (stored-persistence.ts adds the SQLite copy).
 *
 * Why here: a client that keeps sending QoS 2 PUBLISH packets with fresh message ids while
 * withholding PUBREL grows its receipt table (and, with the stored persistence, the database)
 * toward the 16-bit message id ceiling per client id, and without end across client ids
 * (GHSA-5jvp-3p2v-5qgf). aedes 1.2 caps it (`maxInflightInbound`); the MQTT 5 line we run
 * (aedes 2.0.0-beta.1) predates that fix, so the cap lives in the persistence: a receipt beyond
 * `maxInflightInbound` is refused, and aedes closes the connection on a refused store (an MQTT 5
 * client is told the same limit up front as its Receive Maximum, see mqtt-listener.ts).
 *
 * Counting is per connection (per aedes client object), as in aedes 1.2: a DUP retransmission
 * of a message id already held takes no second slot, PUBREL (`incomingDelPacket`) and
 * `cleanIncoming` give slots back. Receipts restored at start-up belong to no connection.
 */
import type { Client } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
// The class has no declaration next to its file; it is typed through its `types/` one.
// @ts-expect-error TS7016: typed as MemoryPersistenceType below
import MemoryPersistenceJs from 'aedes-persistence/asyncPersistence.js';
import type MemoryPersistenceType from 'aedes-persistence/types/asyncPersistence';
import { markWill } from './will-refusals';

const MemoryPersistence = MemoryPersistenceJs as typeof MemoryPersistenceType;

/** Default cap on inbound QoS 2 messages awaiting PUBREL per connection (aedes 1.2's default). */
export const DEFAULT_MAX_INFLIGHT_INBOUND = 1000;

export class BoundedPersistence extends MemoryPersistence {
  private readonly inflight = new WeakMap<object, Set<number>>();
  /**
   * Told of a receipt refused over the cap; true = it ends the connection itself
   * (receive-maximum-guard.ts: owed PUBRECs, then DISCONNECT 0x93), and the refused store then
   * never settles, so aedes neither routes nor acknowledges that PUBLISH. Unset or false: the
   * store fails and aedes closes the connection at once.
   */
  onInboundCapExceeded: ((client: Client) => boolean) | null = null;

  /**
   * @param maxInflightInbound QoS 2 receipts one connection may hold at once (default 1,000;
   *   0 = no cap, which GHSA-5jvp-3p2v-5qgf describes as unsafe)
   */
  constructor(private readonly maxInflightInbound = DEFAULT_MAX_INFLIGHT_INBOUND) {
    super();
  }

  /**
   * Stores a QoS 2 receipt.
   * @throws Error `maxInflightInbound exceeded` when the connection already holds the maximum
   *   and `onInboundCapExceeded` does not take it (aedes then closes the connection); nothing
   *   is stored either way
   */
  override async incomingStorePacket(client: Client, packet: AedesPacket): Promise<void> {
    // Reserved synchronously: aedes dispatches a whole socket read at once, so a check after an
    // await would let the entire chunk through.
    const id = packet.messageId ?? 0;
    let held = this.inflight.get(client);
    if (!held) this.inflight.set(client, (held = new Set()));
    const limit = this.maxInflightInbound;
    if (limit > 0 && !held.has(id) && held.size >= limit) {
      if (this.onInboundCapExceeded?.(client)) return new Promise<void>(() => {});
      throw new Error(
        `maxInflightInbound exceeded: ${limit} inbound QoS 2 messages already awaiting PUBREL`,
      );
    }
    held.add(id);
    try {
      await super.incomingStorePacket(client, packet);
    } catch (err) {
      held.delete(id);
      throw err;
    }
  }

  override async incomingDelPacket(client: Client, packet: AedesPacket): Promise<void> {
    await super.incomingDelPacket(client, packet);
    this.inflight.get(client)?.delete(packet.messageId ?? 0);
  }

  /** Stores a will, marked as one for `authorizePublish` (will-refusals.ts). */
  override async putWill(client: Client, packet: AedesPacket): Promise<void> {
    markWill(packet);
    await super.putWill(client, packet);
  }

  override async cleanIncoming(client: Client): Promise<void> {
    await super.cleanIncoming(client);
    this.inflight.delete(client);
  }
}
