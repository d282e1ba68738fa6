/**
 * A raw MQTT connection over TCP for conformance tests: packets are written with mqtt-packet's
 * `generate` (or as hand-made bytes) and every packet the broker sends back is recorded, in
 * order, as mqtt-packet parses it. The socket is destroyed by the harness' close.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { generate, parser as mqttParser, type Packet } from 'mqtt-packet';
import type { Harness } from './broker-harness';
import { mqttPort } from './mqtt-clients';
import { waitUntil } from './wait';

export interface RawMqtt {
  readonly socket: Socket;
  /** Every packet received so far, in order. */
  readonly seen: Packet[];
  /** Resolves when the broker closed the connection (or it was destroyed). */
  readonly closed: Promise<void>;
  /** Sends a packet object (generated for this connection's protocol version) or raw bytes. */
  send(p: Packet | Buffer): void;
  /** Resolves once `check(seen)` holds; rejects after `timeoutMs`. */
  until(check: (seen: Packet[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** The received packets of `cmd`. */
  of<T = Packet>(cmd: Packet['cmd']): T[];
}

/** Opens a raw connection to the harness' MQTT listener; nothing is sent yet. */
export async function rawMqtt(h: Harness, protocolVersion: 4 | 5 = 4): Promise<RawMqtt> {
  const seen: Packet[] = [];
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = tcpConnect(mqttPort(h), '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  socket.on('error', () => {});
  h.onClose(() => void socket.destroy());
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const p = mqttParser({ protocolVersion });
  p.on('packet', (packet) => seen.push(packet));
  p.on('error', () => {});
  socket.on('data', (chunk) => p.parse(chunk));
  return {
    socket,
    seen,
    closed,
    send: (packet) => {
      socket.write(Buffer.isBuffer(packet) ? packet : generate(packet, { protocolVersion }));
    },
    until: (check, what, timeoutMs) => waitUntil(() => check(seen), what, timeoutMs),
    of: <T>(cmd: Packet['cmd']) => seen.filter((x) => x.cmd === cmd) as T[],
  };
}

/**
 * A raw connection that has sent CONNECT and received its CONNACK (clean start unless
 * `clean: false`; MQTT 5 properties from `properties`; a will from `will`).
 */
export async function rawConnected(
  h: Harness,
  clientId: string,
  opts: {
    protocolVersion?: 4 | 5;
    clean?: boolean;
    properties?: Record<string, unknown>;
    will?: { topic: string; payload: Buffer; qos: 0 | 1 | 2; retain: boolean };
  } = {},
): Promise<RawMqtt> {
  const protocolVersion = opts.protocolVersion ?? 4;
  const raw = await rawMqtt(h, protocolVersion);
  raw.send({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion,
    clean: opts.clean ?? true,
    clientId,
    keepalive: 60,
    ...(opts.properties ? { properties: opts.properties } : {}),
    ...(opts.will ? { will: opts.will } : {}),
  } as Packet);
  await raw.until((s) => s.some((x) => x.cmd === 'connack'), `CONNACK for ${clientId}`);
  return raw;
}
