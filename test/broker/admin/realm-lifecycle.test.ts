/**
 * Realm lifecycle (spec/protocol-admin.md §9.4 with the Switchboard note "dispose on time"):
 * an ephemeral realm created with ttl "2s" is gone — config, tokens, registry, sockets, stored
 * copies, DLQ — within 3 s; one extended before expiry survives; expired realms are disposed
 * of at start while unexpired ones survive.
 */
import { describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../../shared/protocol-events';
import {
  startBroker,
  subscribe,
  useBroker,
  waitForServerDisconnect,
  type Harness,
} from '../../helpers/broker-harness';
import { delay, waitFor, waitUntil } from '../../helpers/wait';

/** Polls an async condition every 20 ms (waitUntil takes sync conditions only). */
async function until(condition: () => Promise<boolean>, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await delay(20);
  }
}
import { adminSettings, manager } from './management-client';

const env = (message: unknown) => ({ event: 'job', message, from: 'p' });

async function joinRealm(h: Harness, token: string, role = 'consumer') {
  const socket = await h.connect();
  socket.emit(ClientEvent.AUTHENTICATION, { token });
  const ok = await waitFor<{ realm: string }>(socket, ServerEvent.AUTH_OK);
  socket.emit(ClientEvent.CONSUMER, {
    name: `c-${token}`,
    id: `c-${token}`,
    consumer_id: `c-${token}`,
  });
  return { socket, realm: ok.realm, role };
}

describe('ephemeral realm disposal', () => {
  const ctx = useBroker(
    adminSettings(
      {},
      {
        tokens: [
          { token: 'a'.repeat(64), realm: '*', role: 'admin' },
          { token: 'short-client', realm: 'short', role: 'consumer' },
          { token: 'kept-client', realm: 'kept', role: 'consumer' },
          { token: 'gone-client', realm: 'gone', role: 'consumer' },
        ],
      },
    ),
  );

  it('disposes of a ttl "2s" realm with everything in it within 3 s; an extended one survives', async () => {
    const h = ctx.h;
    const m = await manager(h);
    expect((await m.run({ command: 'add_realm', realm: 'short', ttl: '2s' })).ok).toBe(true);
    expect((await m.run({ command: 'add_realm', realm: 'kept', ttl: '2s' })).ok).toBe(true);
    const short = await joinRealm(h, 'short-client');
    const kept = await joinRealm(h, 'kept-client');
    expect(short.realm).toBe('short');
    await waitUntil(
      () => h.broker.getStats().realms.short?.consumers.online === 1,
      'consumer online in short',
    );
    const store = h.broker.store;
    await store.enqueue('short', 'p-job', { consumer: 'c', payload: env(1), producer: 'p' });
    const dead = await store.enqueue('short', 'p-job', {
      consumer: 'c',
      payload: env(2),
      producer: 'p',
    });
    await store.deadLetter(dead, 'test');
    await store.saveSubscription({ realm: 'short', key: 'p-job', consumer: 'c', record: {} });
    await store.enqueue('kept', 'p-job', { consumer: 'c', payload: env(3), producer: 'p' });

    // Extend "kept" before it expires (heartbeat pattern, §9.3).
    expect((await m.run({ command: 'set_realm_lifetime', realm: 'kept', ttl: '1h' })).ok).toBe(
      true,
    );

    const reason = await waitForServerDisconnect(short.socket, 3_000);
    expect(reason).toBe('io server disconnect');
    await until(async () => (await store.countQueued('short')) === 0, 'short purged', 3_000);

    const { settings } = await m.run({ command: 'get' });
    expect(settings.realms.short).toBeUndefined();
    expect(settings.tokens.map((t: { realm: string }) => t.realm)).not.toContain('short');
    expect(settings.realms.kept.ephemeral).toBe(true);
    expect(await store.listDlq('short')).toEqual([]);
    expect((await store.loadSubscriptions()).filter((s) => s.realm === 'short')).toEqual([]);
    expect(h.broker.getStats().realms.short).toBeUndefined();

    expect(kept.socket.connected).toBe(true);
    expect(await store.countQueued('kept')).toBe(1);

    // The disposed realm's token no longer authenticates.
    const again = await h.connect();
    again.emit(ClientEvent.AUTHENTICATION, { token: 'short-client' });
    expect((await waitFor<{ code: number }>(again, ServerEvent.AUTH_FAIL)).code).toBe(401);
  });

  it("remove_realm disconnects the realm's sockets and counts them", async () => {
    const m = await manager(ctx.h);
    await m.run({ command: 'add_realm', realm: 'gone' });
    const client = await joinRealm(ctx.h, 'gone-client');
    expect(client.realm).toBe('gone');
    const disconnected = waitForServerDisconnect(client.socket);
    const reply = await m.run({ command: 'remove_realm', realm: 'gone' });
    expect(reply).toMatchObject({ ok: true, removed_tokens: 1, disconnected_sockets: 1 });
    expect(await disconnected).toBe('io server disconnect');
  });

  it('converting to permanent survives the expiry; shortening brings disposal forward', async () => {
    const m = await manager(ctx.h);
    await m.run({ command: 'add_realm', realm: 'conv', ttl: '1s' });
    await m.run({ command: 'set_realm_lifetime', realm: 'conv', ephemeral: false });
    await m.run({ command: 'add_realm', realm: 'shorten', ttl: '1h' });
    await m.run({ command: 'set_realm_lifetime', realm: 'shorten', ttl: '500ms' });
    await until(
      async () => !(await m.run({ command: 'get' })).settings.realms.shorten,
      'shorten disposed',
      2_000,
    );
    const { settings } = await m.run({ command: 'get' });
    expect(settings.realms.conv).toEqual({ required: true });
  });
});

describe('sweep at start', () => {
  it('disposes of expired ephemeral and legacy temporary realms at start; unexpired ones survive', async () => {
    const past = Date.now() - 1_000;
    const h = await startBroker(
      adminSettings(
        {},
        {
          realms: {
            default: { required: false },
            old: { ephemeral: true, expires_at: past },
            legacy: { temporary: true, expires_at: past },
            fresh: { ephemeral: true, expires_at: Date.now() + 3_600_000 },
          },
        },
      ),
    );
    try {
      const realms = h.broker.auth.config.realms;
      expect(Object.keys(realms).sort()).toEqual(['default', 'fresh']);
    } finally {
      await h.close();
    }
  });
});

describe('queue accounting of a disposed realm', () => {
  const ctx = useBroker(adminSettings({ limits: { max_queued_per_realm: 2 } }));

  /** Stores two copies in open realm `cap` (its cap) for an offline durable consumer. */
  async function fillCap(h: Harness): Promise<unknown[]> {
    const join = async () => {
      const s = await h.connect();
      s.emit(ClientEvent.AUTHENTICATION, { realm: 'cap', role: 'both' });
      await waitFor(s, ServerEvent.AUTH_OK);
      return s;
    };
    const c = await join();
    c.emit(ClientEvent.CONSUMER, { name: 'w', id: 'w' });
    await subscribe(c, 'w', 'p', 'job', { durable: true, ack: true });
    c.disconnect();
    const p = await join();
    p.emit(ClientEvent.PRODUCER, { name: 'p' });
    const confirms: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      confirms.push(
        await p.timeout(5_000).emitWithAck(ClientEvent.PRODUCE, { ...env(i), event: 'job' }),
      );
    }
    p.disconnect();
    return confirms;
  }

  it('forgets the copies it purged: a realm re-created under the same name starts empty', async () => {
    const m = await manager(ctx.h);
    expect((await m.run({ command: 'add_realm', realm: 'cap', required: false })).ok).toBe(true);
    const ok = (c: unknown) => (c as { ok: boolean }).ok;
    expect((await fillCap(ctx.h)).map(ok)).toEqual([true, true, false]);
    expect((await m.run({ command: 'remove_realm', realm: 'cap' })).ok).toBe(true);
    await until(async () => (await ctx.h.broker.store.countQueued('cap')) === 0, 'purged', 2_000);
    expect((await m.run({ command: 'add_realm', realm: 'cap', required: false })).ok).toBe(true);
    // The stale count of the old realm would refuse every copy against the cap of 2.
    await waitUntil(() => ctx.h.broker.getStats().realms.cap === undefined, 'old counts gone');
    expect((await fillCap(ctx.h)).map(ok)).toEqual([true, true, false]);
  });
});
