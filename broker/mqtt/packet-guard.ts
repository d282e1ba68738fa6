/**
 * Hardening of aedes' packet parser (mqtt-packet 9) for one connection (issue 14):
 *   - `maxPacketSize` (bytes of remaining length, `mqtt.max_packet_size`): a packet declaring
 *     more is refused as soon as its fixed header is parsed, before its body is buffered. The
 *     parser never allocates from a declared length: it keeps the chunks as they arrive (`bl`),
 *     so a huge declared length with few bytes holds only those bytes, and with this cap at
 *     most `maxPacketSize` of them;
 *   - UTF-8 strings (client id, topics, filters, username, will topic) must be well-formed UTF-8
 *     without U+0000 ([MQTT-1.5.3-1], [MQTT-1.5.3-2]); mqtt-packet decodes them leniently;
 *   - MQTT 5 properties are parsed strictly (property-guard.ts).
 * A refusal is a parser error: aedes emits `clientError` and closes this connection only.
 * These are mqtt-packet internals (`_parseLength`, `_parseString`); test/broker/mqtt covers them.
 */
import type { Client } from 'aedes';
import { guardProperties } from './property-guard';

/** Default `mqtt.max_packet_size`: 1 MiB of remaining length. */
export const DEFAULT_MAX_PACKET_SIZE = 1_048_576;

interface ParserInternals {
  packet: { length: number };
  _pos: number;
  _list: { length: number; slice(start: number, end: number): Buffer };
  _parseLength(): boolean;
  _parseNum(): number;
  _parseString(): string | null;
  _emitError(err: Error): void;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Installs the guards on `client`'s parser. */
export function guardParser(client: Client, maxPacketSize: number): void {
  const parser = (client as unknown as { _parser: ParserInternals })._parser;
  const parseLength = parser._parseLength.bind(parser);
  parser._parseLength = () => {
    if (!parseLength()) return false;
    // A connected MQTT 5 client is told by aedes itself (DISCONNECT 0x95 "Packet too large",
    // same limit: mqtt5-options.ts), once this chunk is parsed and before any more is read.
    if (parser.packet.length > maxPacketSize && !speaksMqtt5(client)) {
      parser._emitError(
        new Error(`packet of ${parser.packet.length} bytes over max_packet_size ${maxPacketSize}`),
      );
      return false;
    }
    return true;
  };
  guardProperties(parser as unknown as Parameters<typeof guardProperties>[0]);
  // mqtt-packet's own `_parseString`, with a strict decoder (null = the parser's "cannot parse").
  parser._parseString = () => {
    const length = parser._parseNum();
    const end = length + parser._pos;
    if (length === -1 || end > parser._list.length || end > parser.packet.length) return null;
    let text: string;
    try {
      text = utf8.decode(parser._list.slice(parser._pos, end));
    } catch {
      return null;
    }
    if (text.includes('\u0000')) return null;
    parser._pos += length;
    return text;
  };
}

/** Whether `client` completed an MQTT 5 CONNECT (aedes then enforces the packet size itself). */
function speaksMqtt5(client: Client): boolean {
  return client.version === 5 && client.connected;
}
