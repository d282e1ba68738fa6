/**
 * Seeded MQTT 5 packet sequences for the MQTT fuzz test: a CONNECT (random properties, will,
 * odd client ids) and up to eight packets of every kind a client sends, with random
 * properties, topics that are wrong in every way MQTT cares about, and about a third of the
 * packets with random bytes overwritten. Encoded by mqtt-packet; anything it refuses to encode
 * becomes a bare DISCONNECT header.
 */
import { generate, type Packet } from 'mqtt-packet';

export function mqtt5FuzzSequence(random: () => number): Buffer[] {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const maybe = (p: number) => random() < p;
  const connectProps = () => ({
    ...(maybe(0.3) && { sessionExpiryInterval: pick([0, 1, 60, 0xffffffff]) }),
    ...(maybe(0.3) && { receiveMaximum: pick([1, 10, 65535]) }),
    ...(maybe(0.3) && { maximumPacketSize: pick([1, 20, 1_000_000]) }),
    ...(maybe(0.3) && { topicAliasMaximum: int(20) }),
    ...(maybe(0.3) && { requestResponseInformation: maybe(0.5) }),
    ...(maybe(0.3) && { requestProblemInformation: maybe(0.5) }),
    ...(maybe(0.3) && { userProperties: { a: 'b', c: ['d', 'e'] } }),
    ...(maybe(0.1) && { authenticationMethod: 'SCRAM', authenticationData: Buffer.from('x') }),
  });
  const publishProps = () => ({
    ...(maybe(0.3) && { topicAlias: int(20) }),
    ...(maybe(0.3) && { messageExpiryInterval: int(5) }),
    ...(maybe(0.3) && { responseTopic: pick(['a/b', '#', 'x/+']) }),
    ...(maybe(0.3) && { correlationData: Buffer.from([0, 255]) }),
    ...(maybe(0.3) && { payloadFormatIndicator: true }),
    ...(maybe(0.2) && { subscriptionIdentifier: int(4) }),
    ...(maybe(0.3) && { userProperties: { x: 'y' } }),
    ...(maybe(0.2) && { contentType: 'text/plain' }),
  });
  const topics = ['t', 'a/b', '', '$SYS/x', '$share/g/t', 'a/+', '#', 't/'.repeat(120), 'é/☃'];
  const packets: Packet[] = [
    {
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 5,
      clean: maybe(0.5),
      clientId: pick(['', 'a', '__proto__', 'constructor', 'x'.repeat(40)]),
      keepalive: int(100),
      properties: connectProps(),
      ...(maybe(0.4) && {
        will: {
          topic: pick(topics),
          payload: Buffer.from('bye'),
          qos: pick([0, 1, 2] as const),
          retain: maybe(0.5),
          properties: { willDelayInterval: int(3), messageExpiryInterval: int(10) },
        },
      }),
    },
  ];
  for (let i = 0, n = 1 + int(8); i < n; i++) {
    const messageId = 1 + int(10);
    switch (int(8)) {
      case 0:
      case 1:
      case 2:
        packets.push({
          cmd: 'publish',
          topic: pick(topics),
          payload: Buffer.from('p'),
          qos: pick([0, 1, 2] as const),
          retain: maybe(0.5),
          dup: maybe(0.2),
          messageId,
          properties: publishProps(),
        });
        break;
      case 3:
        packets.push({
          cmd: 'subscribe',
          messageId,
          subscriptions: [
            {
              topic: pick(['#', '+/x', '$share/g/#', 'a/#/b', '', '$SYS/#', '__proto__']),
              qos: pick([0, 1, 2] as const),
              nl: maybe(0.5),
              rap: maybe(0.5),
              rh: pick([0, 1, 2]),
            },
          ],
          ...(maybe(0.5) && { properties: { subscriptionIdentifier: int(3) } }),
        });
        break;
      case 4:
        packets.push({ cmd: 'unsubscribe', messageId, unsubscriptions: [pick(topics)] });
        break;
      case 5:
        packets.push({
          cmd: pick(['puback', 'pubrec', 'pubrel', 'pubcomp'] as const),
          messageId,
          reasonCode: pick([0, 0x10, 0x80, 0x92]),
        });
        break;
      case 6:
        packets.push({
          cmd: 'disconnect',
          reasonCode: pick([0, 4, 0x80]),
          ...(maybe(0.5) && { properties: { sessionExpiryInterval: int(100) } }),
        });
        break;
      default:
        packets.push(
          maybe(0.5)
            ? { cmd: 'pingreq' }
            : { cmd: 'auth', reasonCode: 0x18, properties: { authenticationMethod: 'x' } },
        );
    }
  }
  return packets.map((packet) => {
    let bytes: Buffer;
    try {
      bytes = generate(packet, { protocolVersion: 5 });
    } catch {
      bytes = Buffer.from([0xe0, 0]);
    }
    if (maybe(0.3)) {
      for (let k = 0, n = 1 + int(3); k < n; k++) bytes[int(bytes.length)] = int(256);
    }
    return bytes;
  });
}
