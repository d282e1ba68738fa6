/**
 * Malformed MQTT packets over a real TCP socket (issue 14): each closes only the offending
 * connection; the broker, a client connected before, and new clients keep working; a huge
 * declared length is refused from the fixed header, without buffering its body.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useBroker } from '../../helpers/broker-harness';
import { packet, str, u16 } from '../../helpers/mqtt-bytes';
import { mqttClient, mqttPort, nextMessage } from '../../helpers/mqtt-clients';

const ctx = useBroker({ mqtt: { enabled: true, port: 0, max_packet_size: 1024 } });

/** A raw TCP connection to the MQTT port; resolves once connected. */
function raw(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect(mqttPort(ctx.h), '127.0.0.1', () => resolve(s));
    s.on('error', () => {});
    s.once('error', reject);
    ctx.h.onClose(() => void s.destroy());
  });
}

/** Resolves when the broker closes `s` (rejects after 5 s). */
function closedByBroker(s: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    if (s.destroyed) {
      resolve();
      return;
    }
    const timer = setTimeout(() => reject(new Error('connection still open after 5 s')), 5_000);
    s.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A valid MQTT 3.1.1 CONNECT (clean session, keep-alive 60 s). */
const connectPacket = (id: string, protocol = 'MQTT') =>
  packet(0x10, Buffer.concat([str(protocol), Buffer.from([4, 0x02]), u16(60), str(id)]));
const publishPacket = (topic: string | Buffer, payload: Buffer) =>
  packet(0x30, Buffer.concat([str(topic), payload]));

/** A raw client past CONNACK. */
async function connected(id: string): Promise<Socket> {
  const s = await raw();
  const connack = new Promise<Buffer>((resolve) => s.once('data', resolve));
  s.write(connectPacket(id));
  expect([...(await connack)]).toEqual([0x20, 0x02, 0x00, 0x00]);
  return s;
}

/** The broker still routes for a client connected before, and admits a new one. */
async function brokerStillWorks(witness: Awaited<ReturnType<typeof mqttClient>>): Promise<void> {
  const got = nextMessage(witness);
  const fresh = await mqttClient(ctx.h);
  await fresh.publishAsync('ok', 'still here', { qos: 1 });
  expect((await got).text).toBe('still here');
}

async function witness() {
  const w = await mqttClient(ctx.h, { clientId: 'witness' });
  await w.subscribeAsync('ok', { qos: 1 });
  return w;
}

describe('malformed MQTT packets', () => {
  const cases: Array<[string, (s: Socket) => Promise<void> | void]> = [
    [
      'a remaining length of more than 4 bytes',
      (s) => void s.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x7f])),
    ],
    [
      'a CONNECT whose strings run past its declared length',
      (s) =>
        void s.write(Buffer.concat([Buffer.from([0x10, 0x06]), u16(200), Buffer.from('MQTT')])),
    ],
    ['a CONNECT with a wrong protocol name', (s) => void s.write(connectPacket('bad', 'MQTX'))],
    ['a PUBLISH before CONNECT', (s) => void s.write(publishPacket('t', Buffer.from('x')))],
    [
      'reserved header flags (SUBSCRIBE with flags 0)',
      (s) => void s.write(Buffer.from([0x80, 0x00])),
    ],
  ];
  for (const [name, send] of cases) {
    it(`closes the connection on ${name}`, async () => {
      const w = await witness();
      const s = await raw();
      await send(s);
      await closedByBroker(s);
      await brokerStillWorks(w);
    });
  }

  it('closes a connection that sends a truncated packet and goes silent, at CONNECT timeout or end', async () => {
    const w = await witness();
    const s = await raw();
    s.write(connectPacket('trunc').subarray(0, 7));
    s.end();
    await closedByBroker(s);
    await brokerStillWorks(w);
  });

  it('refuses a huge declared length from the fixed header, without waiting for its bytes', async () => {
    const w = await witness();
    const s = await connected('huge');
    const before = process.memoryUsage().arrayBuffers;
    // PUBLISH declaring 268,435,455 bytes, followed by three.
    s.write(Buffer.from([0x30, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x01, 0x74]));
    await closedByBroker(s);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    await brokerStillWorks(w);
  });

  it('closes a connection sending a packet over mqtt.max_packet_size (1024 here), not the others', async () => {
    const w = await witness();
    const s = await connected('big');
    s.write(publishPacket('ok', Buffer.alloc(2_000, 0x61)));
    await closedByBroker(s);
    const small = await connected('small');
    small.write(publishPacket('ok', Buffer.from('fits')));
    const got = await nextMessage(w);
    expect(got.text).toBe('fits');
    await brokerStillWorks(w);
  });

  it('closes a connection publishing to a topic that is not valid UTF-8 (or holds U+0000)', async () => {
    const w = await witness();
    const seen: string[] = [];
    w.on('message', (t) => seen.push(t));
    const bad = await connected('utf8');
    bad.write(publishPacket(Buffer.from([0x6f, 0xc3, 0x28]), Buffer.from('x')));
    await closedByBroker(bad);
    const nul = await connected('nul');
    nul.write(publishPacket(Buffer.from('ok\u0000'), Buffer.from('x')));
    await closedByBroker(nul);
    await brokerStillWorks(w);
    expect(seen).toEqual(['ok']);
  });
});
