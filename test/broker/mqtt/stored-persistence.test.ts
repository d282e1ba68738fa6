/**
 * StoredPersistence against a real SQLite store file (issue 14), without aedes around it: a
 * will left in one run comes back in the next with the identity of its client, and the will
 * stream drops (and deletes) a restored will whose identity is no longer valid; outgoing queues
 * come back in order and a PUBREL replacing a PUBLISH (QoS 2) is stored in its place;
 * `purgeRealm` deletes one realm's rows, in memory and on disk, and nothing of another realm.
 */
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Client } from 'aedes';
import type { AedesPacket } from 'aedes-packet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MqttIdentity } from '../../../broker/mqtt/mqtt-identity';
import { scopeClientId, scopeTopic } from '../../../broker/mqtt/realm-topics';
import { restoredWillIdentity } from '../../../broker/mqtt/packet-codec';
import { StoredPersistence } from '../../../broker/mqtt/stored-persistence';
import { SqliteStore } from '../../../broker/storage/sqlite-store';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

const identity: MqttIdentity = {
  realm: 'alpha',
  role: 'both',
  clientId: 'dev',
  tokenHash: 'h1',
  authenticated: true,
};
const client = (id: string) => ({ id }) as unknown as Client;
const broker = (id: string) => ({ id, counter: 0 });
const publish = (topic: string, text: string, qos = 1) =>
  ({
    cmd: 'publish',
    topic,
    payload: Buffer.from(text),
    qos,
    retain: false,
    dup: false,
    brokerId: 'b1',
    brokerCounter: 0,
  }) as unknown as AedesPacket;

async function run<T>(
  valid: (i: MqttIdentity) => boolean,
  body: (p: StoredPersistence) => Promise<T>,
  brokerId: string,
): Promise<T> {
  const store = new SqliteStore({ filename: join(dir.path, 's.sqlite') });
  const p = new StoredPersistence(store.mqttState, () => identity, valid);
  await p.setup(broker(brokerId));
  try {
    return await body(p);
  } finally {
    await store.close();
  }
}

async function all(stream: Readable): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for await (const x of stream) out.push(x as Record<string, unknown>);
  return out;
}

describe('StoredPersistence across runs', () => {
  it('restores a will with its identity; an invalid one is dropped and deleted', async () => {
    await run(
      () => true,
      (p) => p.putWill(client('alpha/dev'), publish('alpha/gone', 'bye')),
      'b1',
    );
    const wills = await run(
      () => true,
      async (p) => all(p.streamWill({})),
      'b2',
    );
    expect(wills).toHaveLength(1);
    expect(wills[0]).toMatchObject({ topic: 'alpha/gone', clientId: 'alpha/dev', brokerId: 'b1' });
    expect((wills[0]!.payload as Buffer).toString()).toBe('bye');
    expect(restoredWillIdentity(wills[0]!)).toEqual(identity);

    expect(
      await run(
        () => false,
        async (p) => all(p.streamWill({})),
        'b3',
      ),
    ).toEqual([]);
    expect(
      await run(
        () => true,
        async (p) => all(p.streamWill({})),
        'b4',
      ),
    ).toEqual([]);
  });

  it("purgeRealm deletes exactly that realm's rows (names that LIKE would confuse kept)", async () => {
    const realms = ['a_b', 'axb', 'a_bc', '100%', '1000'];
    await run(
      () => true,
      async (p) => {
        for (const realm of realms) {
          const id = scopeClientId(realm, 'dev');
          await p.addSubscriptions(client(id), [{ topic: scopeTopic(realm, 't/#'), qos: 1 }]);
          await p.outgoingEnqueueCombi([{ clientId: id }], publish(scopeTopic(realm, 't/1'), 'q'));
          await p.putWill(client(id), publish(scopeTopic(realm, 'gone'), 'bye'));
          await p.storeRetained(publish(scopeTopic(realm, 'cfg'), 'r'));
        }
        await p.purgeRealm('a_b');
        await p.purgeRealm('100%');
        // In memory at once.
        expect(await p.subscriptionsByClient(client(scopeClientId('a_b', 'dev')))).toEqual([]);
        expect(await all(p.outgoingStream(client(scopeClientId('100%', 'dev'))))).toEqual([]);
      },
      'b1',
    );
    const left = await run(
      () => true,
      async (p) => ({
        retained: (await all(p.createRetainedStream('+/cfg'))).map((r) => r.topic).sort(),
        wills: (await all(p.streamWill({}))).map((w) => w.clientId).sort(),
        subs: await Promise.all(
          realms.map(
            async (r) => (await p.subscriptionsByClient(client(scopeClientId(r, 'dev')))).length,
          ),
        ),
        queued: await Promise.all(
          realms.map(
            async (r) => (await all(p.outgoingStream(client(scopeClientId(r, 'dev'))))).length,
          ),
        ),
      }),
      'b2',
    );
    expect(left).toEqual({
      retained: ['1000/cfg', 'a_bc/cfg', 'axb/cfg'],
      wills: ['1000/dev', 'a_bc/dev', 'axb/dev'],
      subs: [0, 1, 1, 0, 1],
      queued: [0, 1, 1, 0, 1],
    });
  });

  it('restores outgoing queues in order; a PUBREL replaces its PUBLISH; PUBACK removes it', async () => {
    await run(
      () => true,
      async (p) => {
        const sub = [{ clientId: 'default/c' }];
        for (const t of ['1', '2', '3'])
          await p.outgoingEnqueueCombi(sub, publish('default/t', t, 2));
        const [first] = await all(p.outgoingStream(client('default/c')));
        const sent = { ...first, messageId: 7 } as unknown as AedesPacket;
        await p.outgoingUpdate(client('default/c'), sent);
        await p.outgoingUpdate(client('default/c'), {
          cmd: 'pubrel',
          messageId: 7,
        } as unknown as AedesPacket);
      },
      'b1',
    );
    const queue = await run(
      () => true,
      async (p) => all(p.outgoingStream(client('default/c'))),
      'b2',
    );
    expect(queue.map((q) => q.cmd)).toEqual(['pubrel', 'publish', 'publish']);
    expect(queue.slice(1).map((q) => (q.payload as Buffer).toString())).toEqual(['2', '3']);
    await run(
      () => true,
      async (p) => {
        const [, second] = await all(p.outgoingStream(client('default/c')));
        await p.outgoingUpdate(client('default/c'), {
          ...second,
          messageId: 9,
        } as unknown as AedesPacket);
        await p.outgoingClearMessageId(client('default/c'), {
          messageId: 9,
        } as unknown as AedesPacket);
      },
      'b3',
    );
    const left = await run(
      () => true,
      async (p) => all(p.outgoingStream(client('default/c'))),
      'b4',
    );
    expect(left.map((q) => q.cmd)).toEqual(['pubrel', 'publish']);
  });
});
