/**
 * The one hook on mqtt-packet's `writeToStream`, the function aedes serialises every outgoing
 * packet with (it looks it up on the module object at each call, lib/write.js). Two guards need
 * it: the CONNACK rewrite of shared subscriptions (`shared-subscribe-guard.ts`) and the
 * client-limit flow control (`outbound-limits.ts`). Wrapping the function twice made their
 * order depend on which guard ran first (a flow installed second skipped the rewrite), so both
 * register here and run in a fixed order: every rewrite first, then the sink on the final packet.
 */
import { createRequire } from 'node:module';
import type { Packet } from 'mqtt-packet';

export type WriteToStream = (
  packet: Packet,
  stream: NodeJS.WritableStream,
  opts?: object,
) => boolean;

/** mqtt-packet's module object, the very one aedes' write.js calls `writeToStream` on. */
const mqttPacket = createRequire(import.meta.url)('mqtt-packet') as {
  writeToStream: WriteToStream & { cacheNumbers?: boolean };
};

/** mqtt-packet's own writer: serialises `packet` onto `stream` with no hook. */
export const writeUnhooked: WriteToStream & { cacheNumbers?: boolean } = mqttPacket.writeToStream;

/** Rewrites a packet bound for `stream`; returns the packet to send (the same one if unchanged). */
export type PacketRewrite = (packet: Packet, stream: NodeJS.WritableStream) => Packet;

/** Takes over the write of `packet` (returns what `writeToStream` would), or undefined to pass. */
export type PacketSink = (
  packet: Packet,
  stream: NodeJS.WritableStream,
  opts: object | undefined,
) => boolean | undefined;

const rewrites: PacketRewrite[] = [];
let sink: PacketSink | null = null;
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const hooked: WriteToStream = (packet, stream, opts) => {
    let out = packet;
    for (const rewrite of rewrites) out = rewrite(out, stream);
    return sink?.(out, stream, opts) ?? writeUnhooked(out, stream, opts);
  };
  // mqtt-packet's number-cache switch lives on the function; keep it reachable.
  Object.defineProperty(hooked, 'cacheNumbers', {
    get: () => writeUnhooked.cacheNumbers,
    set: (v: boolean) => {
      (writeUnhooked as { cacheNumbers?: boolean }).cacheNumbers = v;
    },
  });
  mqttPacket.writeToStream = hooked;
}

/** Adds a rewrite (once per process: call it at module set-up, not per connection). */
export function addPacketRewrite(rewrite: PacketRewrite): void {
  install();
  rewrites.push(rewrite);
}

/**
 * Sets the sink (one per process).
 * @throws Error when another sink is already set.
 */
export function setPacketSink(next: PacketSink): void {
  install();
  if (sink && sink !== next) throw new Error('mqtt-packet write sink already set');
  sink = next;
}
