/**
 * Cluster-wide replay protection of manager proofs (`spec/protocol-admin.md` §6.4 and its
 * note (c)): a proof used on one node is refused on another; with Redis down, a node with
 * `nonce_fail_open` (the default) accepts fresh proofs and a node with it off refuses them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProofFailure } from '../../broker/auth/proof-verifier';
import { SignedAction } from '../../shared/admin-signature';
import type { Harness } from '../helpers/broker-harness';
import {
  adminEnvelope,
  freshPrefix,
  sendSigned,
  startAuthNode,
} from '../helpers/cluster-auth-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { waitUntil } from '../helpers/wait';

const CMD = SignedAction.AUTH_MANAGEMENT_COMMAND;
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

async function node(id: string, prefix: string, failOpen?: boolean): Promise<Harness> {
  const h = await startAuthNode(redis.url, prefix, id, {
    cluster: failOpen === undefined ? {} : { nonce_fail_open: failOpen },
  });
  nodes.push(h);
  return h;
}

describe('manager proof nonces across nodes', () => {
  it('refuses on node B a proof already used on node A, for every signed event', async () => {
    const prefix = freshPrefix();
    const a = await node('node-a', prefix);
    const b = await node('node-b', prefix);
    const get = adminEnvelope(CMD, { command: 'get' });
    expect(await sendSigned(a, CMD, get)).toMatchObject({ ok: true });
    expect(await sendSigned(b, CMD, get)).toEqual({
      ok: false,
      code: 401,
      message: ProofFailure.REPLAYED,
    });
    const next = adminEnvelope(SignedAction.AUTHORIZATION_NEXT, {});
    expect(await sendSigned(b, SignedAction.AUTHORIZATION_NEXT, next)).toEqual({
      ok: true,
      request: null,
    });
    expect(await sendSigned(a, SignedAction.AUTHORIZATION_NEXT, next)).toMatchObject({
      ok: false,
      code: 401,
      message: ProofFailure.REPLAYED,
    });
    // A fresh proof still passes on either node.
    expect(await sendSigned(b, CMD, adminEnvelope(CMD, { command: 'get' }))).toMatchObject({
      ok: true,
    });
  });

  it('with Redis down: fail-open accepts a fresh proof, fail-closed refuses it', async () => {
    const prefix = freshPrefix();
    const open = await node('node-open', prefix);
    const closed = await node('node-closed', prefix, false);
    expect(await sendSigned(closed, CMD, adminEnvelope(CMD, { command: 'get' }))).toMatchObject({
      ok: true,
    });
    await redis.kill();
    await waitUntil(
      () => [open, closed].every((n) => n.broker.getStats().cluster?.redis === 'down'),
      'both nodes see redis down',
    );
    expect(await sendSigned(open, CMD, adminEnvelope(CMD, { command: 'get' }))).toMatchObject({
      ok: true,
    });
    expect(await sendSigned(closed, CMD, adminEnvelope(CMD, { command: 'get' }))).toEqual({
      ok: false,
      code: 401,
      message: ProofFailure.UNCHECKED,
    });
    // Local replay protection still holds while Redis is down.
    const once = adminEnvelope(CMD, { command: 'get' });
    expect(await sendSigned(open, CMD, once)).toMatchObject({ ok: true });
    expect(await sendSigned(open, CMD, once)).toMatchObject({ message: ProofFailure.REPLAYED });
    // Back up: the fail-closed node accepts again.
    await redis.restart();
    await waitUntil(
      () => closed.broker.getStats().cluster?.redis === 'up',
      'fail-closed node sees redis again',
      10_000,
    );
    expect(await sendSigned(closed, CMD, adminEnvelope(CMD, { command: 'get' }))).toMatchObject({
      ok: true,
    });
  });
});
