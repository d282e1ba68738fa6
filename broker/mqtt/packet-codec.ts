/**
 * MQTT packets as the message store keeps them (`stored-persistence.ts`): JSON text with the
 * payload in base64 and other Buffers revived, and the identity a restored will was left with.
 */
import type { AedesPacket } from 'aedes-packet';
import PacketJs from 'aedes-packet';
import type { MqttIdentity } from './mqtt-identity';

/** aedes' packet copy (fresh message id); its typings declare a namespace, not the class. */
export const Packet = PacketJs as unknown as new (original: AedesPacket) => Pkt;

export type Pkt = AedesPacket & { [key: string]: unknown };
/** Identities of wills restored from the store, by packet (set and read by the persistence). */
export const restoredIdentities = new WeakMap<object, MqttIdentity>();

/** The identity stored with a will restored from a previous run (null client at publish). */
export function restoredWillIdentity(packet: object): MqttIdentity | undefined {
  return restoredIdentities.get(packet);
}

/** A packet as JSON text, its payload in base64. */
export function encodePacket(packet: object, extra: Record<string, unknown> = {}): string {
  const { payload, ...rest } = packet as { payload?: Buffer | string };
  const body = payload === undefined ? undefined : Buffer.from(payload).toString('base64');
  return JSON.stringify({ ...rest, ...extra, payload: body });
}

/**
 * The inverse of `encodePacket`. Buffers elsewhere in the packet (MQTT 5 `correlationData`,
 * binary properties) were written by JSON as `{type: 'Buffer', data: [...]}`: they come back as
 * Buffers, or mqtt-packet could not encode the packet again.
 */
export function decodePacket(text: string): Pkt {
  const raw = JSON.parse(text, reviveBuffer) as Record<string, unknown>;
  if (typeof raw.payload === 'string') raw.payload = Buffer.from(raw.payload, 'base64');
  return raw as Pkt;
}

function reviveBuffer(_key: string, value: unknown): unknown {
  if (
    value !== null &&
    typeof value === 'object' &&
    (value as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((value as { data?: unknown }).data)
  ) {
    return Buffer.from((value as { data: number[] }).data);
  }
  return value;
}
