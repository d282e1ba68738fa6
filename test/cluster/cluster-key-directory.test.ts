/**
 * The key directory shared over Redis (`spec/protocol-extensions.md` §2.4, R10, Note 2-D):
 * real nodes clustered over a real `redis-server`. A key published on node A is found from
 * node B and from node C started afterwards; the pin is cluster-wide, so another token cannot
 * replace the key through another node; a document without the identity removes it locally.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import { ADMIN_TOKEN, authenticate, signedCall } from '../helpers/auth-clients';
import { SignedAction } from '../../shared/admin-signature';
import type { Harness } from '../helpers/broker-harness';
import { freshPrefix, startAuthNode } from '../helpers/cluster-auth-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { consumerPayload } from '../helpers/stock-clients';
import { waitUntilAsync } from '../helpers/wait';
import { lookupKey, publishKey } from '../broker/extensions/key-clients';

const ALICE = 'alice-token-0123456789abcdef0123456789';
const MALLORY = 'mallory-token-0123456789abcdef01234567';
const AUTH = {
  realms: { default: { required: false }, acme: { required: false } },
  tokens: [
    { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
    { token: ALICE, realm: 'default', role: 'both' },
    { token: MALLORY, realm: 'default', role: 'both' },
  ],
};

let redis: RedisServer;
let nodes: Harness[] = [];
beforeEach(async () => {
  redis = await startRedisServer();
  nodes = [];
});
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  await redis.stop();
});

async function node(id: string, prefix: string): Promise<Harness> {
  const h = await startAuthNode(redis.url, prefix, id, { auth: AUTH });
  nodes.push(h);
  return h;
}

async function client(h: Harness, auth: Record<string, unknown>, name: string) {
  const s = await h.connect();
  const reply = await authenticate(s, auth);
  if (reply.event !== 'AUTH_OK') throw new Error(reply.message);
  s.emit(ClientEvent.CONSUMER, consumerPayload(name));
  await h.settle(s);
  return s;
}

describe('cluster key directory (§2.4)', () => {
  it('R10: visible on another node and on a node that joins later; the pin holds cluster-wide', async () => {
    const prefix = freshPrefix();
    const a = await node('node-a', prefix);
    const b = await node('node-b', prefix);
    const alice = await client(a, { token: ALICE }, 'p6-consumer');
    expect(
      await publishKey(alice, {
        identity: 'p6-consumer',
        key_id: 'p6-k1',
        public_key: 'P6-PUBKEY',
      }),
    ).toEqual({ ok: true });

    const peer = await client(b, { realm: 'default', role: 'both' }, 'op-console');
    await waitUntilAsync(
      async () => (await lookupKey(peer, 'p6-consumer')).length === 1,
      'node B sees the key',
    );
    expect(await lookupKey(peer, 'p6-consumer')).toEqual([
      expect.objectContaining({ key_id: 'p6-k1', public_key: 'P6-PUBKEY' }),
    ]);

    const c = await node('node-c', prefix);
    const late = await client(c, { realm: 'default', role: 'both' }, 'late');
    await waitUntilAsync(
      async () => (await lookupKey(late, 'p6-consumer')).length === 1,
      'node C adopted the key at start-up',
    );

    // Another principal registering the name on node B cannot replace alice's key there.
    const mallory = await client(b, { token: MALLORY }, 'p6-consumer');
    expect(
      await publishKey(mallory, { identity: 'p6-consumer', public_key: 'EVIL' }),
    ).toMatchObject({
      ok: false,
      code: 403,
    });
    expect((await lookupKey(late, 'p6-consumer')).map((k) => k.public_key)).toEqual(['P6-PUBKEY']);
  });

  it('Note 2-D: remove_realm on one node removes the keys on the others', async () => {
    const prefix = freshPrefix();
    const a = await node('node-a', prefix);
    const b = await node('node-b', prefix);
    const dev = await client(a, { realm: 'acme', role: 'both' }, 'dev');
    expect(await publishKey(dev, { identity: 'dev', public_key: 'D' })).toEqual({ ok: true });
    const watcher = await client(b, { realm: 'acme', role: 'both' }, 'watcher');
    await waitUntilAsync(async () => (await lookupKey(watcher, 'dev')).length === 1, 'B sees it');
    const cmd = (body: Record<string, unknown>) =>
      signedCall(a, SignedAction.AUTH_MANAGEMENT_COMMAND, ADMIN_TOKEN, body);
    expect(await cmd({ command: 'remove_realm', realm: 'acme' })).toMatchObject({ ok: true });
    expect(await cmd({ command: 'add_realm', realm: 'acme', required: false })).toMatchObject({
      ok: true,
    });
    await waitUntilAsync(async () => {
      const again = await b.connect();
      try {
        const reply = await authenticate(again, { realm: 'acme', role: 'both' });
        return reply.event === 'AUTH_OK' && (await lookupKey(again, 'dev')).length === 0;
      } finally {
        again.disconnect();
      }
    }, "node B dropped the removed realm's keys");
  });
});
