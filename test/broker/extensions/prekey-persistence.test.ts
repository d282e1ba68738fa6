/**
 * The prekey directory's lifetime and ownership (`spec/protocol-extensions.md` §3.3, §10,
 * Notes 3-A and 3-F): the pool survives a restart on a real SQLite file without handing a
 * taken key out again, `remove_realm` drops it, `rename_realm` moves it, and the identity
 * takeover attacks of Note 1.5-A are refused.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registeredConsumerIn } from '../../helpers/auth-clients';
import { startBroker, useBroker, type Harness } from '../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../support/temp-dir';
import { adminSettings, manager } from '../admin/management-client';
import { BUNDLE, publishPrekeys, takePrekeys } from './prekey-clients';

const ALICE = 'alice-token-0123456789abcdef0123456789';
const MALLORY = 'mallory-token-0123456789abcdef01234567';

let dir: TempDir;
const open: Harness[] = [];
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

async function broker(): Promise<Harness> {
  const settings = adminSettings(
    { storage: 'sqlite', storage_options: { filename: join(dir.path, 'prekeys.sqlite') } },
    {
      realms: {
        default: { required: false },
        acme: { required: false },
        acme2: { required: false },
      },
      tokens: [
        { token: 'a'.repeat(64), realm: '*', role: 'admin' },
        { token: ALICE, realm: 'default', role: 'both' },
        { token: MALLORY, realm: 'default', role: 'both' },
      ],
    },
  );
  const h = await startBroker(settings as Parameters<typeof startBroker>[0], { env: {} });
  open.push(h);
  return h;
}

const client = registeredConsumerIn;

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

describe('prekey persistence (SQLite, Note 3-F)', () => {
  it('the bundle, the smaller pool and the pin survive a restart', async () => {
    const first = await broker();
    const alice = await client(first, { token: ALICE }, 'alice');
    expect(await publishPrekeys(alice, 'alice', BUNDLE)).toMatchObject({ one_time_available: 3 });
    const peer = await client(first, { realm: 'default', role: 'both' }, 'peer');
    expect((await takePrekeys(peer, 'alice'))?.one_time_prekey).toBe('OTP-1');
    await stop(first);

    const second = await broker();
    const later = await client(second, { realm: 'default', role: 'both' }, 'peer');
    // OTP-1 was taken before the restart: it is never handed out again.
    expect(await takePrekeys(later, 'alice')).toMatchObject({
      identity_key: 'IDENT-PUB',
      one_time_prekey: 'OTP-2',
      one_time_remaining: 1,
    });
    const mallory = await client(second, { token: MALLORY }, 'alice');
    expect((await publishPrekeys(mallory, 'alice', BUNDLE)).code).toBe(403);
  });

  it('remove_realm drops the bundles; rename_realm moves them, in the file too', async () => {
    const h = await broker();
    const m = await manager(h);
    const gone = await client(h, { realm: 'acme', role: 'both' }, 'gone');
    expect((await publishPrekeys(gone, 'gone', BUNDLE)).ok).toBe(true);
    expect((await m.run({ command: 'remove_realm', realm: 'acme' })).ok).toBe(true);
    expect((await m.run({ command: 'add_realm', realm: 'acme', required: false })).ok).toBe(true);
    const dev = await client(h, { realm: 'acme', role: 'both' }, 'dev');
    expect(await takePrekeys(dev, 'gone')).toBeNull();
    expect((await publishPrekeys(dev, 'dev', BUNDLE)).ok).toBe(true);
    await m.run({ command: 'remove_realm', realm: 'acme2' });
    expect(await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' })).toMatchObject({
      ok: true,
    });
    await stop(h);

    const restarted = await broker();
    const moved = await client(restarted, { realm: 'acme2', role: 'both' }, 'peer');
    expect((await takePrekeys(moved, 'dev'))?.one_time_prekey).toBe('OTP-1');
    expect(await takePrekeys(moved, 'gone')).toBeNull();
    const old = await client(restarted, { realm: 'acme', role: 'both' }, 'peer2');
    expect(await takePrekeys(old, 'dev')).toBeNull();
  });
});

describe('identity takeover (Note 3-A, Note 1.5-A)', () => {
  const ctx = useBroker();

  it("a second socket's PRODUCER {name:'alice'} cannot replace alice's bundle", async () => {
    const alice = await ctx.h.consumer('alice');
    expect((await publishPrekeys(alice, 'alice', BUNDLE)).ok).toBe(true);
    const mallory = await ctx.h.producer('alice');
    const forged = { ...BUNDLE, identity_key: 'MALLORY-IDENT' };
    expect(await publishPrekeys(mallory, 'alice', forged)).toEqual({
      ok: false,
      code: 403,
      message: "identity 'alice' is not registered on this connection",
    });
    expect((await takePrekeys(mallory, 'alice'))?.identity_key).toBe('IDENT-PUB');
  });

  it('another principal that registers the free name cannot publish for it', async () => {
    const h = await broker();
    const alice = await client(h, { token: ALICE }, 'alice');
    expect((await publishPrekeys(alice, 'alice', BUNDLE)).ok).toBe(true);
    await h.disconnect(alice);
    const mallory = await client(h, { token: MALLORY }, 'alice');
    const forged = { ...BUNDLE, identity_key: 'MALLORY-IDENT' };
    expect((await publishPrekeys(mallory, 'alice', forged)).code).toBe(403);
    expect((await takePrekeys(mallory, 'alice'))?.identity_key).toBe('IDENT-PUB');
  });
});
