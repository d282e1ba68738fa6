/**
 * MQTT 5 PUBCOMP 0x92 "Packet Identifier not found" for a PUBREL the session holds no QoS 2
 * receipt for (issue 24; OASIS MQTT 5.0 §3.7.2.1 PUBCOMP Reason Codes, §4.3.3).
 *
 * aedes 2.0.0-beta.1 answers every PUBREL with PUBCOMP 0x00 ("Success"), found or not. This
 * guard takes the PUBREL of a connected MQTT 5 client out of aedes' dispatch and answers it as
 * aedes would, with the one difference of the reason code: the receipt is looked up in the
 * persistence; found, it is deleted and PUBCOMP 0x00 is sent; not found, PUBCOMP 0x92. MQTT
 * 3.1.1 has no reason codes, so its PUBRELs stay with aedes (PUBCOMP either way,
 * [MQTT-4.3.3-2]).
 *
 * The guard keeps aedes' batching: it counts the packet in `_parsingBatch` and calls
 * `_nextBatch` when the PUBCOMP is written, as aedes' `handle` does, and refreshes the keep
 * alive timer. A PUBREL parsed before the CONNACK is queued by aedes and answered by aedes.
 * These are aedes internals (`_parser`'s `packet` listener, `_parsingBatch`, `_nextBatch`);
 * test/broker/mqtt/mqtt-conformance.test.ts covers them.
 */
import type { Client } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
import { writeToStream } from 'mqtt-packet';

/** MQTT 5 reason codes of PUBCOMP (MQTT 5.0 §3.7.2.1). */
const SUCCESS = 0x00;
const PACKET_IDENTIFIER_NOT_FOUND = 0x92;

interface Receipts {
  incomingGetPacket(client: Client, packet: AedesPacket): Promise<unknown>;
  incomingDelPacket(client: Client, packet: AedesPacket): Promise<void>;
}

interface ClientInternals {
  connackSent: boolean;
  closed: boolean;
  _parsingBatch: number;
  _nextBatch(err?: Error | null): void;
  _keepaliveInterval: number;
  _keepaliveTimer: NodeJS.Timeout | null;
  _parser: NodeJS.EventEmitter;
  broker: { persistence: Receipts; maximumPacketSize: number };
}

interface PubrelPacket {
  cmd: string;
  messageId?: number;
  length?: number;
}

/**
 * Installs the guard on `client`. Call right after `aedes.handle` (before other `packet`
 * listeners are prepended): it replaces aedes' own listener with one that delegates every other
 * packet to it.
 * @param wireSize bytes of a whole packet of that remaining length (mqtt5-options.ts)
 */
export function answerUnknownPubrel(client: Client, wireSize: (remaining: number) => number): void {
  const c = client as unknown as ClientInternals;
  const parser = c._parser;
  const [enqueue] = parser.listeners('packet') as ((packet: unknown) => void)[];
  if (!enqueue) return;
  parser.removeListener('packet', enqueue);
  parser.on('packet', function (this: unknown, packet: PubrelPacket) {
    const max = c.broker.maximumPacketSize;
    if (
      packet.cmd !== 'pubrel' ||
      client.version !== 5 ||
      !c.connackSent ||
      // An oversized packet goes to aedes, which answers it DISCONNECT 0x95.
      (max > 0 && wireSize(packet.length ?? 0) > max)
    ) {
      enqueue.call(this, packet);
      return;
    }
    c._parsingBatch++;
    pubrel(client, c, packet as AedesPacket & PubrelPacket);
    if (c._keepaliveInterval > 0) c._keepaliveTimer?.refresh();
  });
}

function pubrel(client: Client, c: ClientInternals, packet: AedesPacket & PubrelPacket): void {
  const persistence = c.broker.persistence;
  persistence
    .incomingGetPacket(client, packet)
    .then(
      (found) =>
        found
          ? persistence.incomingDelPacket(client, packet).then(
              () => SUCCESS,
              () => SUCCESS,
            )
          : PACKET_IDENTIFIER_NOT_FOUND,
      () => PACKET_IDENTIFIER_NOT_FOUND,
    )
    .then((reasonCode) => {
      if (c.closed || !client.connected) {
        c._nextBatch(new Error('connection closed'));
        return;
      }
      const pubcomp = { cmd: 'pubcomp' as const, messageId: packet.messageId ?? 0, reasonCode };
      const flushed = writeToStream(pubcomp, client.conn, { protocolVersion: 5 });
      if (flushed) setImmediate(() => c._nextBatch(null));
      else client.conn.once('drain', () => c._nextBatch(null));
    })
    .catch((err: unknown) => c._nextBatch(err instanceof Error ? err : new Error(String(err))));
}
