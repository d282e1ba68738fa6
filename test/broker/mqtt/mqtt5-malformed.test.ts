/**
 * Malformed MQTT 5 packets over a real TCP socket (issue 14): each closes only the offending
 * connection (with DISCONNECT where MQTT 5 has a reason code for it), the broker process keeps
 * running, and a client connected before keeps receiving. Covers the strict property parsing of
 * property-guard.ts (a duplicate Session Expiry Interval used to throw inside aedes when the
 * connection closed) and aedes' own MQTT 5 checks.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { parser as mqttParser } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { useBroker } from '../../helpers/broker-harness';
import { packet, str, varint } from '../../helpers/mqtt-bytes';
import { mqttClient, mqttPort, nextMessage } from '../../helpers/mqtt-clients';

const ctx = useBroker({ mqtt: { enabled: true, port: 0 } });

const props = (...bytes: (number | Buffer)[]) => {
  const body = Buffer.concat(bytes.map((b) => (typeof b === 'number' ? Buffer.from([b]) : b)));
  return Buffer.concat([varint(body.length), body]);
};
/** An MQTT 5 CONNECT (clean start, keep alive 60 s) with the given properties block. */
const connect5 = (properties: Buffer, id = 'bad') =>
  packet(0x10, Buffer.concat([str('MQTT'), Buffer.from([5, 0x02, 0, 60]), properties, str(id)]));
const okConnect = connect5(props());
const publish5 = (topic: string, properties: Buffer, payload = 'x') =>
  packet(0x30, Buffer.concat([str(topic), properties, Buffer.from(payload)]));
const u32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

interface Outcome {
  closed: boolean;
  seen: string[];
}

/** Sends `packets` one by one on a raw connection; reports what came back and if it closed. */
async function send(packets: Buffer[]): Promise<Outcome> {
  const s: Socket = tcpConnect(mqttPort(ctx.h), '127.0.0.1');
  s.on('error', () => {});
  ctx.h.onClose(() => void s.destroy());
  const seen: string[] = [];
  const p = mqttParser({ protocolVersion: 5 });
  p.on('packet', (x: { cmd: string; reasonCode?: number }) =>
    seen.push(`${x.cmd}:${x.reasonCode}`),
  );
  s.on('data', (d) => p.parse(d));
  const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
  await new Promise((resolve) => s.once('connect', resolve));
  for (const b of packets) {
    s.write(b);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const done = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000)),
  ]);
  return { closed: done, seen };
}

const CASES: [string, Buffer[], string[]][] = [
  [
    'a CONNECT with two Session Expiry Intervals',
    [connect5(props(0x11, u32(10), 0x11, u32(20)))],
    [],
  ],
  ['a CONNECT with two Receive Maximums', [connect5(props(0x21, 0, 5, 0x21, 0, 6))], []],
  [
    'a will with two Will Delay Intervals',
    [
      packet(
        0x10,
        Buffer.concat([
          str('MQTT'),
          Buffer.from([5, 0x06, 0, 60]),
          props(),
          str('w'),
          props(0x18, u32(1), 0x18, u32(2)),
          str('will/t'),
          str('bye'),
        ]),
      ),
    ],
    [],
  ],
  [
    'a property running past the property length',
    [
      packet(
        0x10,
        Buffer.concat([
          str('MQTT'),
          Buffer.from([5, 0x02, 0, 60]),
          varint(2),
          Buffer.from([0x11, 0, 0, 0, 10]),
          str('id'),
        ]),
      ),
    ],
    [],
  ],
  ['an unknown property', [connect5(props(0x7f, 0))], []],
  [
    'a user property with invalid UTF-8',
    [connect5(props(0x26, str(Buffer.from([0xff])), str('v')))],
    [],
  ],
  ['a truncated user property', [connect5(props(0x26, Buffer.from([0, 9, 0x41])))], []],
  [
    'a content type with U+0000',
    [okConnect, publish5('t', props(0x03, str('a\u0000b')))],
    ['connack:0'],
  ],
  [
    'a PUBLISH with two Topic Aliases',
    [okConnect, publish5('t', props(0x23, 0, 1, 0x23, 0, 2))],
    ['connack:0'],
  ],
  [
    'a PUBLISH with Topic Alias 0',
    [okConnect, publish5('t', props(0x23, 0, 0))],
    ['connack:0', 'disconnect:148'],
  ],
  [
    'a PUBLISH naming an unknown alias',
    [okConnect, publish5('', props(0x23, 0, 5))],
    ['connack:0', 'disconnect:148'],
  ],
  [
    'a SUBSCRIBE with Subscription Identifier 0',
    [
      okConnect,
      packet(
        0x82,
        Buffer.concat([Buffer.from([0, 1]), props(0x0b, 0), str('t'), Buffer.from([1])]),
      ),
    ],
    ['connack:0', 'disconnect:130'],
  ],
  ['an AUTH before CONNECT', [packet(0xf0, Buffer.from([0x18, 0]))], []],
  ['a CONNECT with Receive Maximum 0', [connect5(props(0x21, 0, 0))], ['connack:130']],
];

describe('malformed MQTT 5 packets', () => {
  it.each(CASES)('%s closes only that connection', async (_name, packets, expected) => {
    const bystander = await mqttClient(ctx.h, { protocolVersion: 5 });
    await bystander.subscribeAsync('still/here');
    const outcome = await send(packets);
    expect(outcome.closed).toBe(true);
    expect(outcome.seen).toEqual(expected);
    const got = nextMessage(bystander);
    const p = await mqttClient(ctx.h, { protocolVersion: 5 });
    await p.publishAsync('still/here', 'yes');
    expect((await got).text).toBe('yes');
  });
});
