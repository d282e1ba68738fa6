/**
 * A packet encoded within the client's Maximum Packet Size, or not at all (issue 24; OASIS MQTT
 * 5.0 §3.1.2.11.4 Maximum Packet Size).
 *
 * [MQTT-3.1.2-24]: the server MUST NOT send a packet larger than the Maximum Packet Size of the
 * client's CONNECT (bytes of the whole packet, fixed header included). The acknowledgements and
 * the DISCONNECT lose their Reason String first, then their User Properties, when that makes
 * them fit (PUBACK [MQTT-3.4.2-2/3], PUBREC [MQTT-3.5.2-2/3], PUBREL [MQTT-3.6.2-2/3], PUBCOMP
 * [MQTT-3.7.2-2/3], SUBACK [MQTT-3.9.2-1/2], UNSUBACK [MQTT-3.11.2-1/2], DISCONNECT
 * [MQTT-3.14.2-3/4], CONNACK [MQTT-3.2.2-19/20]). A PUBLISH is never trimmed: its properties
 * are the application's and go to the subscriber unaltered ([MQTT-3.3.2-17/18]).
 */
import { generate, type Packet } from 'mqtt-packet';

type WithProperties = Packet & { properties?: Record<string, unknown> };

/**
 * `packet` encoded (`opts` as mqtt-packet takes them) in at most `max` bytes: as it is, else
 * without Reason String, else also without User Properties (not for a PUBLISH); null when it
 * cannot fit. `packet` is never changed (its properties may be shared with other copies).
 * @throws Error as mqtt-packet does for a packet it cannot encode
 */
export function fitPacket(packet: Packet, opts: object, max: number): Buffer | null {
  const whole = generate(packet, opts);
  if (whole.length <= max) return whole;
  const properties = (packet as WithProperties).properties;
  if (packet.cmd === 'publish' || !properties) return null;
  const { reasonString, userProperties, ...rest } = properties;
  if (reasonString !== undefined) {
    const trimmed = { ...rest, ...(userProperties !== undefined && { userProperties }) };
    const buf = generate({ ...packet, properties: trimmed } as Packet, opts);
    if (buf.length <= max) return buf;
  }
  if (userProperties !== undefined) {
    const buf = generate({ ...packet, properties: rest } as Packet, opts);
    if (buf.length <= max) return buf;
  }
  return null;
}
