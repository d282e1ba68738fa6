/**
 * A resumed persistent session gets its stored backlog before anything published meanwhile,
 * each message once (issue 24, replayed bug report; MQTT 3.1.1 §4.6 / MQTT 5.0 §4.6 message
 * ordering, [MQTT-4.6.0-6]; the socket.io side keeps backlog-before-live the same way).
 *
 * aedes 2.0.0-beta.1's connect flow restores the session's subscriptions (live deliveries start
 * there), sends the CONNACK, then drains the stored queue from a snapshot. A message published
 * in between was sent live at once — before the backlog, inside it, even before the CONNACK —
 * and, being queued for the session too, also again from the snapshot when it made it in.
 *
 * The guard holds the live deliveries of a connection whose CONNECT resumes a session (Clean
 * Session / Clean Start 0) until its connect flow, queue drain included, is done (`connected`),
 * noting the PUBLISHes the drain wrote. Then the held copies go out, in order, through aedes'
 * own delivery (packet ids, the session's queue entry, DUP), except those the drain already
 * sent (same `brokerId` / `brokerCounter`). A held QoS 1/2 copy is also in the session's queue,
 * so a connection closed before the release loses nothing (the next resume gets it). The
 * mqemitter callback of a held copy is answered at once: holding it would stall the broker's
 * routing at its concurrency limit. Memory: the held copies, and the drained ids for as long
 * as the connection lasts (a copy routed late, after the release, is still recognised).
 */
import type { Client } from 'aedes';
import type { Packet } from 'mqtt-packet';
import { addPacketRewrite } from './packet-writes';

type Deliver = (packet: Routed, cb: () => void) => void;

interface Routed {
  brokerId?: string | null;
  brokerCounter?: number;
}

/** The aedes 2.0.0-beta.1 client state the guard reads and wraps. */
interface ClientInternals extends NodeJS.EventEmitter {
  _parser: NodeJS.EventEmitter;
  conn: NodeJS.WritableStream;
  deliver0: Deliver;
  deliverQoS: Deliver;
}

/** Connection → ids (`brokerId:brokerCounter`) of the PUBLISHes its queue drain wrote. */
const drainedBy = new WeakMap<NodeJS.WritableStream, Set<string>>();
/** Connections whose drain is running (their writes are noted). */
const draining = new WeakSet<NodeJS.WritableStream>();

const keyOf = (packet: Routed): string | null =>
  packet.brokerId ? `${packet.brokerId}:${packet.brokerCounter ?? 0}` : null;

addPacketRewrite((packet: Packet, stream) => {
  if (packet.cmd === 'publish' && draining.has(stream)) {
    const key = keyOf(packet as unknown as Routed);
    if (key) drainedBy.get(stream)?.add(key);
  }
  return packet;
});

/** Puts the guard on `client` (before aedes reads its CONNECT). */
export function holdLiveUntilBacklog(client: Client): void {
  const c = client as unknown as ClientInternals;
  const deliver0 = c.deliver0;
  const deliverQoS = c.deliverQoS;
  let held: Array<{ deliver: Deliver; packet: Routed }> | null = null;
  let drained: Set<string> | null = null;
  const noop = (): void => {};

  const hold =
    (deliver: Deliver): Deliver =>
    (packet, cb) => {
      if (held) {
        held.push({ deliver, packet });
        setImmediate(cb);
        return;
      }
      const key = drained && keyOf(packet);
      if (key && drained!.has(key)) {
        setImmediate(cb);
        return;
      }
      deliver(packet, cb);
    };
  c.deliver0 = hold(deliver0);
  c.deliverQoS = hold(deliverQoS);

  c._parser.prependListener('packet', (packet: { cmd: string; clean?: boolean }) => {
    if (packet.cmd !== 'connect' || packet.clean !== false || held) return;
    held = [];
    drained = new Set();
    const conn = c.conn;
    drainedBy.set(conn, drained);
    draining.add(conn);
    const release = (): void => {
      draining.delete(conn);
      const copies = held ?? [];
      held = null;
      for (const { deliver, packet: p } of copies) {
        const key = keyOf(p);
        if (!key || !drained!.has(key)) deliver(p, noop);
      }
    };
    // A connection closed before then never emits it: the copies go with the client object.
    c.once('connected', release);
  });
}
