/**
 * Sealed UAK records shared over Redis and the realm commands, plus identity spoofing across
 * nodes (`spec/protocol-extensions.md` §4.5, §4.6 checks 8–9, §10 and its Fix, Note 1.5-A,
 * Note 4-J; docs/cluster.md "Sealed sender in a cluster"): two real nodes clustered over a real
 * `redis-server`. A realm removed or renamed on node A takes its UAK records with it for node
 * B; a name pinned on A cannot be taken over through B; a UAK of one realm opens nothing in
 * another.
 */
import type { Socket } from 'socket.io-client';
import { ClientEvent } from '../../shared/protocol-events';
import { SealedText } from '../../shared/protocol-extensions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredConsumerIn } from '../helpers/auth-clients';
import type { Harness } from '../helpers/broker-harness';
import {
  admitsRealm,
  realmConsumer,
  startCluster,
  type ClusterNodes,
} from '../helpers/cluster-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { consumerPayload } from '../helpers/stock-clients';
import { waitUntilAsync } from '../helpers/wait';
import { adminSettings, manager } from '../broker/admin/management-client';
import { publishKey } from '../broker/extensions/key-clients';
import { BUNDLE, publishPrekeys } from '../broker/extensions/prekey-clients';
import { registerPush } from '../broker/extensions/push/push-clients';
import {
  b64,
  mintMaterial,
  requestSenderCert,
  sendSealed,
  setUak,
  uakOf,
  type SealedReply,
} from '../broker/extensions/sealed/sealed-clients';

const ALICE = 'sealed-alice-token-0123456789abcdef01234';
const MALLORY = 'sealed-mallory-token-0123456789abcdef012';
const SEALED_REALM = { required: false, e2ee: 'required' };

let redis: RedisServer;
let cluster: ClusterNodes;
let a: Harness;
let b: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  cluster = await startCluster(
    redis.url,
    ['sr-a', 'sr-b'],
    adminSettings(
      {},
      {
        realms: { default: SEALED_REALM, acme: SEALED_REALM, ren: SEALED_REALM },
        tokens: [
          { token: 'a'.repeat(64), realm: '*', role: 'admin' },
          { token: ALICE, realm: 'default', role: 'both' },
          { token: MALLORY, realm: 'default', role: 'both' },
        ],
      },
    ),
    { env: { ...mintMaterial().env, TYO_MQ_PUSH_TRANSPORT: 'null' } },
  );
  [a, b] = cluster.nodes as [Harness, Harness];
});
afterAll(async () => {
  await cluster?.close();
  await redis?.stop();
});

/** Runs `work` with the given sockets and disconnects them whatever happens. */
async function using<T>(sockets: Socket[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    for (const s of sockets) s.disconnect();
  }
}

/** A sealed send from a fresh role-declared sender of realm `default` on `h`. */
async function sendFrom(
  h: Harness,
  realm: string,
  identity: string,
  uak: string,
): Promise<SealedReply> {
  const sender = await realmConsumer(
    h,
    'default',
    `sr-sender-${Math.random().toString(36).slice(2)}`,
  );
  return using([sender], () => sendSealed(sender, realm, identity, uak, b64('x'), 'm'));
}

/** `list_identities` of `realm` on `h`, names holding `contains`. */
async function identitiesOn(h: Harness, realm: string, contains: string): Promise<unknown[]> {
  const m = await manager(h);
  return using([m.socket], async () => {
    const reply = await m.run({ command: 'list_identities', realm, contains });
    expect(reply).toMatchObject({ ok: true });
    return reply.identities as unknown[];
  });
}

describe('cluster sealed UAK records and realm commands (§10 Fix)', () => {
  it('rename_realm on A moves the records: B admits the new name and refuses the old one', async () => {
    const bob = await realmConsumer(b, 'ren', 'sr-bob');
    await using([bob], async () => {
      expect(await setUak(bob, 'sr-bob', uakOf(7))).toMatchObject({ ok: true });
    });
    expect(await sendFrom(b, 'ren', 'sr-bob', uakOf(7))).toMatchObject({ ok: true });

    const m = await manager(a);
    await using([m.socket], async () => {
      expect(await m.run({ command: 'rename_realm', from: 'ren', to: 'ren2' })).toMatchObject({
        ok: true,
      });
      await admitsRealm(b, 'ren2');
      // The move runs on Redis after the reply: wait until B finds the record under ren2.
      await waitUntilAsync(
        async () => (await sendFrom(b, 'ren2', 'sr-bob', uakOf(7))).ok === true,
        'B admits the UAK under ren2',
      );
      expect(await sendFrom(b, 'ren2', 'sr-bob', uakOf(8))).toMatchObject({
        ok: false,
        code: 403,
      });
      expect(await sendFrom(b, 'ren', 'sr-bob', uakOf(7))).toMatchObject({
        ok: false,
        code: 404,
      });
      // The old name re-created starts without the record, on either node.
      expect(
        await m.run({ command: 'add_realm', realm: 'ren', required: false, e2ee: 'required' }),
      ).toMatchObject({ ok: true });
      await admitsRealm(b, 'ren');
      for (const h of [a, b]) {
        expect(await sendFrom(h, 'ren', 'sr-bob', uakOf(7))).toMatchObject({
          ok: false,
          code: 404,
        });
      }
    });
  });

  it('remove_realm on A deletes the realm’s records for B', async () => {
    const m = await manager(a);
    await using([m.socket], async () => {
      expect(
        await m.run({ command: 'add_realm', realm: 'gone', required: false, e2ee: 'required' }),
      ).toMatchObject({ ok: true });
      await admitsRealm(b, 'gone');
      const carol = await realmConsumer(b, 'gone', 'sr-carol');
      await using([carol], async () => {
        expect(await setUak(carol, 'sr-carol', uakOf(5))).toMatchObject({ ok: true });
      });
      expect(await sendFrom(a, 'gone', 'sr-carol', uakOf(5))).toMatchObject({ ok: true });

      for (const h of [a, b]) {
        expect(await identitiesOn(h, 'gone', 'sr-carol')).toEqual([
          expect.objectContaining({ identity: 'sr-carol', sealed_uak_mode: 'require-uak' }),
        ]);
      }

      expect(await m.run({ command: 'remove_realm', realm: 'gone' })).toMatchObject({ ok: true });
      expect(
        await m.run({ command: 'add_realm', realm: 'gone', required: false, e2ee: 'required' }),
      ).toMatchObject({ ok: true });
      await admitsRealm(b, 'gone');
      // The removal runs on Redis after the reply: wait until B's listing shows it done.
      await waitUntilAsync(
        async () => (await identitiesOn(b, 'gone', 'sr-carol')).length === 0,
        'B lists no record of the removed realm',
      );
      for (const h of [a, b]) {
        expect(await sendFrom(h, 'gone', 'sr-carol', uakOf(5))).toMatchObject({
          ok: false,
          code: 404,
        });
      }
    });
  });
});

describe('cluster identity spoofing (Note 1.5-A, §4.6 checks 8–9)', () => {
  it('a name pinned on A is refused to another credential, or none, on B', async () => {
    const alice = await registeredConsumerIn(a, { token: ALICE }, 'sr-alice');
    await using([alice], async () => {
      expect(await setUak(alice, 'sr-alice', uakOf(3))).toMatchObject({ ok: true });
    });
    // B has no other live holder of the name: only the cluster-wide pin can refuse these.
    // One spoofer at a time (a second registration of the name on B would contest it there).
    for (const [i, auth] of [{ token: MALLORY }, { realm: 'default', role: 'both' }].entries()) {
      const s = await registeredConsumerIn(b, auth, 'sr-alice');
      await using([s], async () => {
        // Push first: B learns the pin as a side effect of the sealed and prekey checks.
        expect(
          await registerPush(s, { identity: 'sr-alice', transport: 'null', token: 'tok-evil' }),
        ).toMatchObject({ ok: false, code: 403 });
        expect(await setUak(s, 'sr-alice', uakOf(4))).toMatchObject({ ok: false, code: 403 });
        expect(await setUak(s, 'sr-alice', undefined, 'unrestricted')).toMatchObject({
          ok: false,
          code: 403,
        });
        expect(await requestSenderCert(s, 'sr-alice', b64('key'))).toMatchObject({
          ok: false,
          code: 403,
        });
        expect(await publishPrekeys(s, 'sr-alice', BUNDLE)).toMatchObject({
          ok: false,
          code: 403,
        });
        // The same connection may act as a name nobody owns: the refusals above are the pin's.
        s.emit(ClientEvent.CONSUMER, consumerPayload(`sr-free-${i}`));
        await b.settle(s);
        expect(await setUak(s, `sr-free-${i}`, uakOf(4))).toMatchObject({ ok: true });
      });
    }
    // Alice's record is untouched: her UAK still admits, the spoofer's does not.
    for (const h of [a, b]) {
      expect(await sendFrom(h, 'default', 'sr-alice', uakOf(4))).toMatchObject({
        ok: false,
        code: 403,
      });
      expect(await sendFrom(h, 'default', 'sr-alice', uakOf(3))).toMatchObject({ ok: true });
    }
  });

  it('a UAK set for a name in one realm opens nothing under that name in another', async () => {
    const dave = await realmConsumer(a, 'default', 'sr-dave');
    const daveAcme = await realmConsumer(b, 'acme', 'sr-dave');
    const erin = await realmConsumer(a, 'default', 'sr-erin');
    await using([dave, daveAcme, erin], async () => {
      expect(await setUak(dave, 'sr-dave', uakOf(1))).toMatchObject({ ok: true });
      expect(await setUak(daveAcme, 'sr-dave', uakOf(2))).toMatchObject({ ok: true });
      expect(await setUak(erin, 'sr-erin', uakOf(6))).toMatchObject({ ok: true });
    });
    for (const h of [a, b]) {
      expect(await sendFrom(h, 'acme', 'sr-dave', uakOf(1))).toMatchObject({
        ok: false,
        code: 403,
      });
      expect(await sendFrom(h, 'default', 'sr-dave', uakOf(2))).toMatchObject({
        ok: false,
        code: 403,
      });
      expect(await sendFrom(h, 'acme', 'sr-erin', uakOf(6))).toMatchObject({
        ok: false,
        code: 404,
      });
      expect(await sendFrom(h, 'default', 'sr-dave', uakOf(1))).toMatchObject({ ok: true });
      expect(await sendFrom(h, 'acme', 'sr-dave', uakOf(2))).toMatchObject({ ok: true });
    }
  });
});

describe('cluster list_identities (Note 1.5-A, §2.4, §4.5)', () => {
  it('either node lists the keys, pins and UAK modes Redis holds, after writes on one', async () => {
    const alice = await registeredConsumerIn(a, { token: ALICE }, 'sr-lis-alice');
    const open = await realmConsumer(b, 'default', 'sr-lis-open');
    await using([alice, open], async () => {
      expect(await setUak(alice, 'sr-lis-alice', uakOf(9))).toMatchObject({ ok: true });
      expect(
        await publishKey(alice, { identity: 'sr-lis-alice', key_id: 'k1', public_key: 'PUB-1' }),
      ).toEqual({ ok: true });
      expect(await setUak(open, 'sr-lis-open', undefined, 'unrestricted')).toMatchObject({
        ok: true,
      });
    });
    // The key reaches Redis a moment after its reply (the node's mirror chain).
    let listed: unknown[] = [];
    await waitUntilAsync(async () => {
      listed = await identitiesOn(a, 'default', 'sr-lis-');
      return JSON.stringify(listed).includes('"k1"');
    }, 'the key in the shared directory');
    expect(listed).toEqual([
      expect.objectContaining({
        identity: 'sr-lis-alice',
        keys: [expect.objectContaining({ key_id: 'k1' })],
        principal_prefix: expect.stringMatching(/^[0-9a-f]{12}$/),
        sealed_uak_mode: 'require-uak',
      }),
      expect.objectContaining({
        identity: 'sr-lis-open',
        keys: [],
        principal_prefix: null,
        sealed_uak_mode: 'unrestricted',
      }),
    ]);
    expect(await identitiesOn(b, 'default', 'sr-lis-')).toEqual(listed);
  });
});

// Last in the file: it stops the cluster's Redis.
describe('cluster sealed UAKs with Redis stopped (Note 4-J)', () => {
  it('SEALED_UAK_SET and SEALED_DELIVER answer 503 (list_identities cannot be signed), and work once Redis is back', async () => {
    const frank = await realmConsumer(a, 'default', 'sr-frank');
    const sender = await realmConsumer(b, 'default', 'sr-frank-sender');
    await using([frank, sender], async () => {
      expect(await setUak(frank, 'sr-frank', uakOf(2))).toMatchObject({ ok: true });
      const m = await manager(b);
      await using([m.socket], async () => {
        await redis.kill();
        expect(await setUak(frank, 'sr-frank', uakOf(3))).toMatchObject({
          ok: false,
          code: 503,
          message: SealedText.UNAVAILABLE,
        });
        expect(
          await sendSealed(sender, 'default', 'sr-frank', uakOf(2), b64('x'), 'd1'),
        ).toMatchObject({ ok: false, code: 503, message: SealedText.UNAVAILABLE });
        // A signed command is refused before it runs: its nonce is checked in Redis too.
        expect(
          await m.run({ command: 'list_identities', realm: 'default', contains: 'sr-frank' }),
        ).toMatchObject({ ok: false, code: 401 });

        await redis.restart();
        // A fresh Redis (no persistence): the record is set again once the links are back.
        await waitUntilAsync(
          async () => (await setUak(frank, 'sr-frank', uakOf(3))).ok === true,
          'SEALED_UAK_SET stored again',
          10_000,
        );
        expect(
          await sendSealed(sender, 'default', 'sr-frank', uakOf(3), b64('x'), 'd2'),
        ).toMatchObject({ ok: true });
        expect(
          await m.run({ command: 'list_identities', realm: 'default', contains: 'sr-frank' }),
        ).toMatchObject({
          ok: true,
          identities: [
            expect.objectContaining({ identity: 'sr-frank', sealed_uak_mode: 'require-uak' }),
          ],
        });
      });
    });
  });
});
