/**
 * The guards Switchboard adds around aedes 2.0.0-beta.1 (docs/mqtt.md, "Why aedes
 * 2.0.0-beta.1"), each against a real broker on a real SQLite file:
 *   - GHSA-5jvp-3p2v-5qgf: QoS 2 PUBLISH without PUBREL is capped per connection
 *     (`mqtt.max_inflight_inbound`), the offender closed, nothing more stored;
 *   - GHSA-p8r9-qf8w-p73r: a clean session's QoS 2 receipts are deleted when it ends, and a new
 *     clean session reusing a message id gets its message delivered (not taken for a duplicate);
 *   - GHSA-52qw-whmv-87c5: client ids and filters named like Object.prototype members work.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { generate, parser as mqttParser, type Packet } from 'mqtt-packet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerSettings, type Harness } from '../../helpers/broker-harness';
import { mqttClient, mqttPort, nextMessage } from '../../helpers/mqtt-clients';
import { delay } from '../../helpers/wait';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const LIMIT = 5;
let dir: TempDir;
let h: Harness;
let dbFile: string;

beforeEach(async () => {
  dir = await makeTempDir();
  dbFile = join(dir.path, 'mqtt.sqlite');
  h = await startBroker({
    storage: 'sqlite',
    storage_options: { filename: dbFile },
    mqtt: { enabled: true, port: 0, max_inflight_inbound: LIMIT },
  } as BrokerSettings);
});
afterEach(async () => {
  if (!stopped) await h.close();
  stopped = false;
  await dir.remove();
});

let stopped = false;
/** Closes the broker now, so that its SQLite file can be read. */
async function stop(): Promise<void> {
  stopped = true;
  await h.close();
}

/** A raw MQTT 3.1.1 connection that records every packet the broker sends. */
async function rawClient(clientId: string): Promise<{ socket: Socket; seen: Packet[] }> {
  const seen: Packet[] = [];
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = tcpConnect(mqttPort(h), '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  socket.on('error', () => {});
  h.onClose(() => void socket.destroy());
  const p = mqttParser({ protocolVersion: 4 });
  p.on('packet', (packet) => seen.push(packet));
  socket.on('data', (chunk) => p.parse(chunk));
  socket.write(
    generate({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId,
      keepalive: 60,
    }),
  );
  await until(() => seen.some((x) => x.cmd === 'connack'));
  return { socket, seen };
}

const qos2 = (messageId: number, text: string): Buffer =>
  generate({
    cmd: 'publish',
    topic: 'qos2/t',
    payload: Buffer.from(text),
    qos: 2,
    messageId,
    dup: false,
    retain: false,
  });

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > ms) throw new Error('condition not met in time');
    await delay(20);
  }
}

function receiptRows(): number {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM mqtt_incoming').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('inbound QoS 2 cap (GHSA-5jvp-3p2v-5qgf)', () => {
  it('closes a connection holding more than max_inflight_inbound receipts', async () => {
    const sub = await mqttClient(h);
    await sub.subscribeAsync('qos2/t', { qos: 2 });
    const got: string[] = [];
    sub.on('message', (_t, p) => got.push(p.toString()));
    const { socket, seen } = await rawClient('flooder');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const burst = [];
    for (let id = 1; id <= LIMIT * 4; id++) burst.push(qos2(id, `m${id}`));
    socket.write(Buffer.concat(burst));
    await closed;
    // Exactly the cap got in, and their PUBRECs were sent before the close
    // (receive-maximum-guard.ts; test/broker/mqtt/mqtt-receive-maximum.test.ts).
    expect(seen.filter((x) => x.cmd === 'pubrec').length).toBe(LIMIT);
    await until(() => got.length === LIMIT);
    const bystander = await mqttClient(h);
    expect(bystander.connected).toBe(true);
  });

  it('lets a publisher that completes its handshakes go on past the cap', async () => {
    const sub = await mqttClient(h);
    await sub.subscribeAsync('qos2/t', { qos: 2 });
    const got: string[] = [];
    sub.on('message', (_t, p) => got.push(p.toString()));
    const pub = await mqttClient(h);
    for (let i = 0; i < LIMIT * 3; i++) await pub.publishAsync('qos2/t', `n${i}`, { qos: 2 });
    await until(() => got.length === LIMIT * 3);
    expect(pub.connected).toBe(true);
  });
});

describe('clean session receipts (GHSA-p8r9-qf8w-p73r)', () => {
  it('deletes a clean session receipts when it ends; a new session reusing the id is delivered', async () => {
    const sub = await mqttClient(h);
    await sub.subscribeAsync('qos2/t', { qos: 2 });
    const got: string[] = [];
    sub.on('message', (_t, p) => got.push(p.toString()));

    const first = await rawClient('reuser');
    first.socket.write(Buffer.concat([qos2(7, 'first'), qos2(8, 'second')]));
    await until(() => first.seen.filter((x) => x.cmd === 'pubrec').length === 2);
    first.socket.destroy();
    await delay(100);

    const second = await rawClient('reuser');
    second.socket.write(qos2(7, 'new session'));
    await until(() => got.includes('new session'));
    expect(got).toEqual(['first', 'second', 'new session']);
    second.socket.write(generate({ cmd: 'pubrel', messageId: 7 }));
    await until(() => second.seen.some((x) => x.cmd === 'pubcomp'));
    await stop();
    expect(receiptRows()).toBe(0);
  });
});

describe('inherited property names (GHSA-52qw-whmv-87c5)', () => {
  it('serves client ids and filters named __proto__, constructor, toString', async () => {
    const proto = await mqttClient(h, { clientId: '__proto__' });
    const ctor = await mqttClient(h, { clientId: 'constructor', clean: false });
    await proto.subscribeAsync(['__proto__', 'constructor/#', 'hasOwnProperty'], { qos: 1 });
    await ctor.subscribeAsync('toString', { qos: 1 });
    const pub = await mqttClient(h, { clientId: 'toString' });
    const seen: string[] = [];
    proto.on('message', (t) => seen.push(t));
    const ctorGot = nextMessage(ctor);
    for (const t of ['__proto__', 'constructor/x', 'hasOwnProperty', 'toString']) {
      await pub.publishAsync(t, 'v', { qos: 1 });
    }
    await until(() => seen.length === 3);
    expect(seen.sort()).toEqual(['__proto__', 'constructor/x', 'hasOwnProperty']);
    expect((await ctorGot).topic).toBe('toString');
    // A second '__proto__' takes the first one's session over, as any client id would.
    const closed = new Promise<void>((resolve) => proto.once('close', () => resolve()));
    const again = await mqttClient(h, { clientId: '__proto__' });
    await closed;
    expect(again.connected).toBe(true);
  });
});
