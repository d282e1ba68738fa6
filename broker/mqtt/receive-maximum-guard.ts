/**
 * DISCONNECT 0x93 "Receive Maximum exceeded" past the inbound QoS 2 cap, after the PUBRECs
 * already owed (issue 24; OASIS MQTT 5.0 §3.3.4 PUBLISH Actions, §4.9 Flow Control, §4.13).
 *
 * The server announces `mqtt.max_inflight_inbound` as its Receive Maximum, and the persistence
 * refuses a QoS 2 receipt beyond it (bounded-persistence.ts, GHSA-5jvp-3p2v-5qgf). MQTT 5.0
 * §3.3.4: a server receiving more than Receive Maximum QoS 1 and QoS 2 PUBLISH packets it has
 * not sent a PUBACK or PUBCOMP for "uses a DISCONNECT packet with Reason Code 0x93". aedes
 * closed the socket at once on the refused store, so the client got no DISCONNECT, and the
 * PUBRECs of the messages accepted before it (still on their way through the persistence,
 * since aedes handles a whole socket read at once) were dropped with the connection.
 *
 * Here a refused receipt instead (1) stops the connection reading (`pause`), (2) leaves that
 * PUBLISH unanswered (nothing is stored, routed or acknowledged for it), (3) waits until every
 * other packet aedes was handling is done — each accepted QoS 2 message's PUBREC is then
 * written — and (4) ends the socket with DISCONNECT 0x93 after what it holds (an MQTT 3.1.1
 * client, which has no server DISCONNECT, gets its PUBRECs and the end), closing the client
 * once that is flushed: aedes' own `disconnect` destroys the socket right after its write,
 * which drops whatever PUBRECs are still in the socket's buffer. The will is published, as
 * for any server-side close other than a DISCONNECT from the client. Should a packet never
 * finish, or the flush never happen (a client that stopped reading), the connection is ended
 * after `DRAIN_TIMEOUT_MS` anyway.
 *
 * Packets are counted from the parser's `packet` event to aedes' per-packet completion
 * callback (`_nextBatch`, which aedes' `handle` and pubrel-guard.ts call once per packet; the
 * one call of `resume` at CONNECT is not a completion): aedes internals, covered by
 * test/broker/mqtt/mqtt-receive-maximum.test.ts.
 */
import type { Client } from 'aedes';
import { generate } from 'mqtt-packet';

/** MQTT 5 DISCONNECT reason code 0x93 "Receive Maximum exceeded" (MQTT 5.0 §3.14.2.1). */
const RECEIVE_MAXIMUM_EXCEEDED = 0x93;

/** The longest wait for the owed acknowledgements before the connection is ended regardless. */
export const DRAIN_TIMEOUT_MS = 5_000;

interface State {
  /** Packets parsed and not yet completed by aedes. */
  pending: number;
  /** Of those, the refused PUBLISHes, which never complete. */
  refused: number;
  timer: NodeJS.Timeout | null;
  ending: boolean;
}

interface ClientInternals {
  _parser: NodeJS.EventEmitter;
  _nextBatch(err?: Error | null): void;
  pause(): void;
  resume(): void;
  close(done?: () => void): void;
  disconnectReasonCode: number | null;
}

export class ReceiveMaximumGuard {
  private readonly states = new WeakMap<Client, State>();

  /** @param onExceeded told once per connection ended this way (a log line) */
  constructor(private readonly onExceeded?: (client: Client) => void) {}

  /** Starts counting `client`'s packets; call for every connection, right after `handle`. */
  watch(client: Client): void {
    const c = client as unknown as ClientInternals;
    const state: State = { pending: 0, refused: 0, timer: null, ending: false };
    this.states.set(client, state);
    c._parser.prependListener('packet', () => {
      state.pending++;
    });
    let resuming = false;
    const resume = c.resume.bind(c);
    c.resume = () => {
      resuming = true;
      try {
        resume();
      } finally {
        resuming = false;
      }
    };
    const next = c._nextBatch;
    c._nextBatch = (err?: Error | null) => {
      if (!resuming) state.pending--;
      if (state.refused > 0) this.settle(client, state);
      next(err);
    };
  }

  /**
   * The persistence refused a QoS 2 receipt of `client` over the cap: ends the connection as
   * the module comment says. Returns false for a connection not watched (the caller then
   * fails the store, and aedes closes the connection at once).
   */
  exceeded(client: Client): boolean {
    const state = this.states.get(client);
    if (!state) return false;
    state.refused++;
    if (state.refused === 1) {
      (client as unknown as ClientInternals).pause();
      this.onExceeded?.(client);
      state.timer = setTimeout(() => this.end(client, state), DRAIN_TIMEOUT_MS);
      state.timer.unref();
    }
    this.settle(client, state);
    return true;
  }

  private settle(client: Client, state: State): void {
    if (state.pending <= state.refused) this.end(client, state);
  }

  private end(client: Client, state: State): void {
    if (state.ending) return;
    state.ending = true;
    if (state.timer) clearTimeout(state.timer);
    const c = client as unknown as ClientInternals;
    if (client.closed) return;
    const close = () => c.close();
    setTimeout(close, DRAIN_TIMEOUT_MS).unref();
    if (client.version === 5 && client.connected) {
      // Seen by `clientDisconnect` listeners, as aedes' own `disconnect` records it.
      c.disconnectReasonCode = RECEIVE_MAXIMUM_EXCEEDED;
      const disconnect = { cmd: 'disconnect' as const, reasonCode: RECEIVE_MAXIMUM_EXCEEDED };
      client.conn.end(generate(disconnect, { protocolVersion: 5 }), close);
    } else client.conn.end(close);
  }
}
