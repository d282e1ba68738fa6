/**
 * A resumed MQTT 5 session gets its backlog even when the resuming CONNECT says Session Expiry 0
 * (issue 24; OASIS MQTT 5.0 §3.1.2.4 Clean Start, §3.1.2.11.2 Session Expiry Interval).
 *
 * Clean Start 0 resumes the session the client id names, with everything queued for it while it
 * was away [MQTT-3.1.2-5]; the CONNECT's Session Expiry Interval only says when that session
 * ends from now on — with 0 (or absent), when *this* network connection closes. aedes
 * 2.0.0-beta.1 folds the two together: `client.clean` is "Session Expiry 0", and its drain of
 * the queue after the CONNACK discards every queued copy of a clean client, so such a resume
 * answered Session Present 1 and then silently dropped the backlog (Mosquitto delivers it).
 *
 * The guard makes an MQTT 5 Clean Start 0 client read as not clean while that drain runs — from
 * the CONNACK written (`connackSent`) until the connect flow completes (`connected`) — so the
 * drain delivers the queue as for any persistent session (packet ids, DUP on redelivery, PUBACK
 * clearing). Before it (restoring subscriptions) and after it `clean` is aedes' own, so the
 * session still ends with the connection: aedes' session-expiry step wipes it on close (by the
 * Session Expiry Interval, not this flag), and QoS 2 receipts are discarded as for any clean
 * session (mqtt5-options.ts). A connection closed mid-drain reads as clean again at once.
 * Clean Start 1 is untouched (aedes drops the old queue; `_cleanStart`), and so is MQTT 3.1.1,
 * where Clean Session 0 already means a session that outlives the connection.
 */
import type { Client } from 'aedes';

/** The aedes 2.0.0-beta.1 client state the guard reads (set by its connect handler). */
interface ClientInternals {
  _parser: NodeJS.EventEmitter;
  clean: boolean;
  /** The CONNACK was written. */
  connackSent?: boolean;
  /** The connect flow, queue drain included, completed. */
  connected?: boolean;
  closed?: boolean;
}

interface ConnectPacket {
  cmd: string;
  protocolVersion?: number;
  clean?: boolean;
}

/** Puts the guard on `client` (before aedes reads its CONNECT). */
export function keepResumedBacklog(client: Client): void {
  const c = client as unknown as ClientInternals;
  c._parser.prependListener('packet', (packet: ConnectPacket) => {
    if (packet.cmd !== 'connect' || packet.protocolVersion !== 5 || packet.clean !== false) return;
    let clean = c.clean;
    const draining = (): boolean => c.connackSent === true && !c.connected && !c.closed;
    Object.defineProperty(c, 'clean', {
      configurable: true,
      enumerable: true,
      get: () => clean && !draining(),
      set: (value: boolean) => {
        clean = value;
      },
    });
  });
}
