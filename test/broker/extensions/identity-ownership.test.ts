/**
 * Identity ownership (`spec/protocol-extensions.md` §1.5) with Note 1.5-A's Fix, and the same
 * binding for `consumer_id` on `SUBSCRIBE` (issue 28): the attacks of the Note replayed with
 * stock `socket.io-client` sockets against a real broker — a second socket taking the name
 * over, another principal after a reconnect, a spoofed `consumer_id` draining a durable queue.
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../../shared/protocol-events';
import { consumerPayload } from '../../helpers/stock-clients';
import { authenticate, startAuthBroker } from '../../helpers/auth-clients';
import {
  exactConsumeEvent,
  produce,
  subscribe,
  useBroker,
  type Harness,
  type Socket,
} from '../../helpers/broker-harness';
import { expectNothing, waitFor } from '../../helpers/wait';
import { lookupKey, publishKey } from './key-clients';

const TOKENS = {
  alice: 'alice-token-0123456789abcdef0123456789',
  mallory: 'mallory-token-0123456789abcdef01234567',
};

/** Auth on; realm `default` open (`required:false`) yet with tokens, so sockets may have principals. */
function authSettings(): Record<string, unknown> {
  return {
    realms: { default: { required: false } },
    tokens: [
      { token: TOKENS.alice, realm: 'default', role: 'both' },
      { token: TOKENS.mallory, realm: 'default', role: 'both' },
    ],
  };
}

async function withToken(h: Harness, token: string): Promise<Socket> {
  const s = await h.connect();
  const reply = await authenticate(s, { token });
  if (reply.event !== 'AUTH_OK') throw new Error(reply.message);
  return s;
}

async function asConsumer(h: Harness, s: Socket, name: string): Promise<Socket> {
  s.emit(ClientEvent.CONSUMER, consumerPayload(name));
  await h.settle(s);
  return s;
}

describe('identity ownership without principals (auth off: first-come, Note 1.5-A items 1–2)', () => {
  const ctx = useBroker();

  it('a second socket registering PRODUCER {name:"alice"} cannot replace alice\'s key', async () => {
    const alice = await ctx.h.consumer('alice');
    expect(await publishKey(alice, { identity: 'alice', public_key: 'ALICE' })).toEqual({
      ok: true,
    });
    const mallory = await ctx.h.producer('alice');
    expect(await publishKey(mallory, { identity: 'alice', public_key: 'MALLORY' })).toMatchObject({
      ok: false,
      code: 403,
      message: "identity 'alice' is not registered on this connection",
    });
    expect((await lookupKey(mallory, 'alice')).map((k) => k.public_key)).toEqual(['ALICE']);
  });

  it('a socket that lost its name to another one loses the right to act as it', async () => {
    const first = await ctx.h.producer('op');
    const second = await ctx.h.producer('op');
    expect((await publishKey(first, { identity: 'op', public_key: 'OLD' })).code).toBe(403);
    expect(await publishKey(second, { identity: 'op', public_key: 'NEW' })).toEqual({ ok: true });
  });

  it('a CONSUMER duplicate of a connected consumer is refused (-3)', async () => {
    await ctx.h.consumer('alice');
    const dup = await ctx.h.connect();
    const refused = waitFor<{ code: number }>(dup, ServerEvent.ERROR);
    dup.emit(ClientEvent.CONSUMER, consumerPayload('alice'));
    expect((await refused).code).toBe(ProtocolErrorCode.DUPLICATE_CONSUMER);
  });
});

describe('principal pinning (Note 1.5-A item 3)', () => {
  let h: Harness;
  const start = async () => (h = await startAuthBroker(authSettings()));

  it('the identity stays with the token that first published, across reconnects', async () => {
    await start();
    try {
      const alice = await asConsumer(h, await withToken(h, TOKENS.alice), 'alice');
      expect(await publishKey(alice, { identity: 'alice', public_key: 'A1' })).toEqual({
        ok: true,
      });
      await h.disconnect(alice);

      // Another principal claims the free name: registration works (core §5.2), acting does not.
      const mallory = await asConsumer(h, await withToken(h, TOKENS.mallory), 'alice');
      expect(await publishKey(mallory, { identity: 'alice', public_key: 'M' })).toMatchObject({
        code: 403,
      });
      await h.disconnect(mallory);

      // A socket with no principal (role-declared admission in the open realm) neither.
      const anon = await h.connect();
      await authenticate(anon, { realm: 'default', role: 'both' });
      await asConsumer(h, anon, 'alice');
      expect((await publishKey(anon, { identity: 'alice', public_key: 'N' })).code).toBe(403);
      await h.disconnect(anon);

      // The owner, back with the same token, still can.
      const back = await asConsumer(h, await withToken(h, TOKENS.alice), 'alice');
      expect(await publishKey(back, { identity: 'alice', public_key: 'A2' })).toEqual({ ok: true });
      expect((await lookupKey(back, 'alice')).map((k) => k.public_key)).toEqual(['A2']);
    } finally {
      await h.close();
    }
  });
});

describe('consumer_id on SUBSCRIBE (issue 28)', () => {
  const EVENT = 'job';
  const durable = (consumer: string, consumerId: string) => ({
    event: EVENT,
    producer: 'fleet',
    consumer,
    consumer_id: consumerId,
    durable: true,
  });

  /** alice subscribes durably, goes offline, and two messages are queued for her. */
  async function queueForAlice(h: Harness, alice: Socket): Promise<Socket> {
    await subscribe(alice, 'alice', 'fleet', EVENT, { durable: true });
    await h.disconnect(alice);
    const fleet = await h.producer('fleet');
    produce(fleet, 'fleet', EVENT, 'secret-1');
    produce(fleet, 'fleet', EVENT, 'secret-2');
    await h.settle(fleet);
    return fleet;
  }

  it('names a live consumer of another socket: refused with ERROR -9, nothing replayed', async () => {
    const h = await startAuthBroker(authSettings());
    try {
      const alice = await asConsumer(h, await h.connect(), 'alice');
      await subscribe(alice, 'alice', 'fleet', EVENT, { durable: true });
      const mallory = await asConsumer(h, await h.connect(), 'mallory');
      const error = waitFor<{ code: number; message: string }>(mallory, ServerEvent.ERROR);
      mallory.emit(ClientEvent.SUBSCRIBE, durable('mallory', 'alice'));
      expect(await error).toEqual({
        code: ProtocolErrorCode.IDENTITY_NOT_OWNED,
        message: "consumer_id 'alice' is bound to another connection",
      });
      // The same name as `consumer`: refused too (its consumer_id defaults to it).
      const again = waitFor<{ code: number }>(mallory, ServerEvent.ERROR);
      mallory.emit(ClientEvent.SUBSCRIBE, {
        event: EVENT,
        producer: 'fleet',
        consumer: 'alice',
        durable: true,
      });
      expect((await again).code).toBe(ProtocolErrorCode.IDENTITY_NOT_OWNED);
    } finally {
      await h.close();
    }
  });

  it('names an identity pinned to another principal: its queue is not drained; the owner drains it', async () => {
    const h = await startAuthBroker(authSettings());
    try {
      const alice = await asConsumer(h, await withToken(h, TOKENS.alice), 'alice');
      expect(await publishKey(alice, { identity: 'alice', public_key: 'A' })).toEqual({ ok: true });
      await queueForAlice(h, alice);

      const mallory = await asConsumer(h, await withToken(h, TOKENS.mallory), 'mallory');
      const delivery = exactConsumeEvent('fleet', EVENT);
      const error = waitFor<{ code: number; message: string }>(mallory, ServerEvent.ERROR);
      const nothing = expectNothing(mallory, delivery, 300);
      mallory.emit(ClientEvent.SUBSCRIBE, durable('mallory', 'alice'));
      expect(await error).toEqual({
        code: ProtocolErrorCode.IDENTITY_NOT_OWNED,
        message: "consumer_id 'alice' belongs to another principal",
      });
      await nothing;

      const back = await asConsumer(h, await withToken(h, TOKENS.alice), 'alice');
      const got: unknown[] = [];
      back.on(delivery, (env: { message: unknown }) => got.push(env.message));
      back.emit(ClientEvent.SUBSCRIBE, durable('alice', 'alice'));
      await waitFor(back, delivery);
      await h.settle(back);
      expect(got).toEqual(['secret-1', 'secret-2']);
    } finally {
      await h.close();
    }
  });
});
