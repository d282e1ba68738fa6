/**
 * Cluster-wide replay protection of manager proofs (`spec/protocol-admin.md` §6.4 and its
 * note (c)): a proof used on one node is refused on another; with Redis down, a node refuses
 * fresh proofs by default (`nonce_fail_open: false`, issue 20 defect 10) and a node that opted
 * in accepts them; after Redis restarts empty, no node accepts a proof it has seen, and each
 * node gives its claims back to Redis so the others refuse them too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
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
import { delay, waitUntil } from '../helpers/wait';

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

async function node(
  id: string,
  prefix: string,
  failOpen?: boolean,
  settings?: Record<string, unknown>,
): Promise<Harness> {
  const h = await startAuthNode(redis.url, prefix, id, {
    cluster: failOpen === undefined ? {} : { nonce_fail_open: failOpen },
    settings,
  });
  nodes.push(h);
  return h;
}

const redisState = (n: Harness) => n.broker.getStats().cluster?.redis;

/** Kills Redis and starts it again empty (no RDB/AOF), waiting for `ns` to see both. */
async function restartRedisEmpty(ns: Harness[]): Promise<void> {
  await redis.kill();
  await waitUntil(() => ns.every((n) => redisState(n) === 'down'), 'nodes see redis down');
  await redis.restart();
  await waitUntil(() => ns.every((n) => redisState(n) === 'up'), 'nodes see redis up', 10_000);
}

/** Resolves once Redis holds the claim of `envelope`'s nonce under `prefix`. */
async function claimedInRedis(prefix: string, envelope: unknown): Promise<void> {
  const key = `${prefix}:nonce:${(envelope as { proof: { nonce: string } }).proof.nonce}`;
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const deadline = Date.now() + 10_000;
    while ((await client.exists(key)) !== 1) {
      if (Date.now() > deadline) throw new Error(`${key} not claimed in redis again`);
      await delay(10);
    }
  } finally {
    client.disconnect();
  }
}

const REPLAYED = { ok: false, code: 401, message: ProofFailure.REPLAYED };

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

  it('with Redis down: fail-open (opt-in) accepts a fresh proof, fail-closed refuses it', async () => {
    const prefix = freshPrefix();
    const open = await node('node-open', prefix, true);
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

  it('by default, with Redis stopped, refuses a valid command on node B with a clear error', async () => {
    const prefix = freshPrefix();
    const a = await node('node-a', prefix);
    const b = await node('node-b', prefix);
    const captured = adminEnvelope(CMD, { command: 'get' });
    expect(await sendSigned(a, CMD, captured)).toMatchObject({ ok: true });
    await redis.kill();
    await waitUntil(() => [a, b].every((n) => redisState(n) === 'down'), 'nodes see redis down');
    // The captured proof replayed on B, and a fresh one: neither can be checked cluster-wide.
    for (const envelope of [captured, adminEnvelope(CMD, { command: 'get' })]) {
      expect(await sendSigned(b, CMD, envelope)).toEqual({
        ok: false,
        code: 401,
        message: ProofFailure.UNCHECKED,
      });
    }
    expect(
      await sendSigned(
        b,
        SignedAction.AUTHORIZATION_NEXT,
        adminEnvelope(SignedAction.AUTHORIZATION_NEXT, {}),
      ),
    ).toMatchObject({ ok: false, code: 401, message: ProofFailure.UNCHECKED });
    // Once Redis is back (empty), the captured proof stays refused: A gave its claim back…
    await redis.restart();
    await waitUntil(() => redisState(b) === 'up', 'node B sees redis again', 10_000);
    await claimedInRedis(prefix, captured);
    expect(await sendSigned(b, CMD, captured)).toEqual(REPLAYED);
    // …and fresh commands pass again.
    expect(await sendSigned(b, CMD, adminEnvelope(CMD, { command: 'get' }))).toMatchObject({
      ok: true,
    });
  });

  it('after Redis restarts empty, refuses every proof a node has seen, on that node and the others', async () => {
    const prefix = freshPrefix();
    const a = await node('node-a', prefix);
    const b = await node('node-b', prefix);
    const usedOnA = adminEnvelope(CMD, { command: 'get' });
    const usedOnB = adminEnvelope(SignedAction.AUTHORIZATION_NEXT, {});
    expect(await sendSigned(a, CMD, usedOnA)).toMatchObject({ ok: true });
    expect(await sendSigned(b, SignedAction.AUTHORIZATION_NEXT, usedOnB)).toMatchObject({
      ok: true,
    });
    await restartRedisEmpty([a, b]);
    // Each node's own store refuses what it has seen…
    expect(await sendSigned(a, CMD, usedOnA)).toEqual(REPLAYED);
    expect(await sendSigned(b, SignedAction.AUTHORIZATION_NEXT, usedOnB)).toMatchObject(REPLAYED);
    // …and each gave its claims back to the empty Redis, so the other node refuses them too.
    await claimedInRedis(prefix, usedOnA);
    await claimedInRedis(prefix, usedOnB);
    expect(await sendSigned(b, CMD, usedOnA)).toEqual(REPLAYED);
    expect(await sendSigned(a, SignedAction.AUTHORIZATION_NEXT, usedOnB)).toMatchObject(REPLAYED);
    expect(await sendSigned(b, CMD, adminEnvelope(CMD, { command: 'get' }))).toMatchObject({
      ok: true,
    });
  });

  it('a node with an auth store refuses, after its own restart and an empty Redis, a proof it used before', async () => {
    const prefix = freshPrefix();
    const dir = mkdtempSync(join(tmpdir(), 'swb-nonces-'));
    try {
      const store = { auth_store: join(dir, 'a.auth.sqlite') };
      const a1 = await node('node-a', prefix, undefined, store);
      const b = await node('node-b', prefix);
      const usedOnA = adminEnvelope(CMD, { command: 'get' });
      expect(await sendSigned(a1, CMD, usedOnA)).toMatchObject({ ok: true });
      await a1.close();
      nodes = nodes.filter((n) => n !== a1);
      await restartRedisEmpty([b]);
      const a2 = await node('node-a', prefix, undefined, store);
      // The persistent store refuses it on A (no pre-start rule with a store) and A restored
      // its claim into Redis when it connected, so B refuses it as well.
      expect(await sendSigned(a2, CMD, usedOnA)).toEqual(REPLAYED);
      await claimedInRedis(prefix, usedOnA);
      expect(await sendSigned(b, CMD, usedOnA)).toEqual(REPLAYED);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
