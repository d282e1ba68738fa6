/**
 * CONNACK 0x01 for a CONNECT with a protocol level Switchboard does not speak (issue 24).
 *
 * [MQTT-3.1.2-2] (MQTT 3.1.1 §3.1.2.2): "The Server MUST respond to the CONNECT Packet with a
 * CONNACK return code 0x01 (unacceptable protocol level) and then disconnect the Client if the
 * Protocol Level is not supported by the Server." MQTT 5.0 §3.1.2.2 lets a server answer a
 * CONNECT whose version is not 5 the same way; a client of a level we do not know cannot be
 * assumed to read MQTT 5 framing, so the answer is the 3.1.1 form (`20 02 00 01`), which
 * 3.1.1 and MQTT 5 clients both parse.
 *
 * mqtt-packet 9 refuses such a CONNECT inside its parser ("Invalid protocol version", levels
 * other than 3, 4 and 5, bridge bit aside) before aedes sees a packet, and aedes then drops the
 * connection with no CONNACK. This guard takes that one parser error: nothing more is read, the
 * CONNACK is written and the connection is destroyed once it is flushed. Every other parser
 * error goes to aedes unchanged. Relies on mqtt-packet internals (`_emitError`, `packet`);
 * test/broker/mqtt/mqtt-conformance.test.ts covers it.
 */
import type { Client } from 'aedes';

/** CONNACK, remaining length 2, no session present, return code 0x01. */
const UNACCEPTABLE_PROTOCOL_LEVEL = Buffer.from([0x20, 0x02, 0x00, 0x01]);

/** The error text mqtt-packet 9 gives an unknown protocol level (parser.js `_parseConnect`). */
const INVALID_PROTOCOL_VERSION = 'Invalid protocol version';

interface LevelParser {
  packet: { cmd?: string };
  error: Error | null;
  _emitError(err: Error): void;
}

/**
 * Installs the guard on `client`'s parser.
 * @param onRefused called once per refused connection (for a debug log line)
 */
export function refuseUnknownProtocolLevel(client: Client, onRefused?: () => void): void {
  const parser = (client as unknown as { _parser: LevelParser })._parser;
  const emitError = parser._emitError.bind(parser);
  parser._emitError = (err: Error) => {
    if (
      err.message !== INVALID_PROTOCOL_VERSION ||
      parser.packet.cmd !== 'connect' ||
      client.connecting ||
      client.connected
    ) {
      emitError(err);
      return;
    }
    // Stops this parse (the parser's loop checks `error`); pausing stops aedes reading more.
    parser.error = err;
    (client as unknown as { pause(): void }).pause();
    onRefused?.();
    const conn = client.conn;
    conn.write(UNACCEPTABLE_PROTOCOL_LEVEL, () => conn.destroy());
  };
}
