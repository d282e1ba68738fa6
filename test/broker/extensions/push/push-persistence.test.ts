/**
 * The push registry's lifetime (`spec/protocol-extensions.md` §10 with Note 6-F's Fix): kept
 * across a restart on a real SQLite file, purged by `remove_realm`, moved by `rename_realm`
 * (nothing left under the old name), and the registration pins the identity (Note 6-A).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PushText } from '../../../../shared/protocol-extensions';
import { registeredConsumerIn } from '../../../helpers/auth-clients';
import { startBroker, type BrokerSettings, type Harness } from '../../../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../../../support/temp-dir';
import { adminSettings, manager } from '../../admin/management-client';
import { registerPush, registrations, unregisterPush } from './push-clients';

const ADMIN = 'a'.repeat(64);
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

function settings(): BrokerSettings {
  return adminSettings(
    {
      storage: 'sqlite',
      storage_options: { filename: join(dir.path, 'push.sqlite') },
      http_api: { enabled: true },
    },
    {
      realms: {
        default: { required: false },
        acme: { required: false },
        acme2: { required: false },
      },
      tokens: [
        { token: ADMIN, realm: '*', role: 'admin' },
        { token: ALICE, realm: 'default', role: 'both' },
        { token: MALLORY, realm: 'default', role: 'both' },
      ],
    },
  ) as BrokerSettings;
}

async function broker(): Promise<Harness> {
  const h = await startBroker(settings(), { env: { TYO_MQ_PUSH_TRANSPORT: 'null' } });
  open.push(h);
  return h;
}

const client = registeredConsumerIn;

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

const reg = (identity: string, token: string) => ({ identity, transport: 'null', token });

describe('push registry persistence (§10, Note 6-F)', () => {
  it('SQLite: endpoints and the pin survive a restart', async () => {
    const first = await broker();
    const alice = await client(first, { token: ALICE }, 'alice');
    expect(await registerPush(alice, reg('alice', 't1'))).toMatchObject({ count: 1 });
    expect(await registerPush(alice, reg('alice', 't2'))).toMatchObject({ count: 2 });
    await stop(first);
    const second = await broker();
    expect(await registrations(second, ADMIN)).toBe(2);
    // Note 6-A: another principal cannot take the identity over, even after a restart.
    const mallory = await client(second, { token: MALLORY }, 'alice');
    expect(await registerPush(mallory, reg('alice', 'evil'))).toMatchObject({
      code: 403,
      message: PushText.NOT_OWNED,
    });
    await second.disconnect(mallory);
    const back = await client(second, { token: ALICE }, 'alice');
    expect(await unregisterPush(back, reg('alice', 't1'))).toEqual({ ok: true, removed: 1 });
    expect(await registrations(second, ADMIN)).toBe(1);
  });

  it('remove_realm purges the realm’s endpoints, also from the file', async () => {
    const h = await broker();
    const m = await manager(h);
    const dev = await client(h, { realm: 'acme', role: 'both' }, 'dev');
    expect((await registerPush(dev, reg('dev', 't'))).ok).toBe(true);
    expect((await m.run({ command: 'remove_realm', realm: 'acme' })).ok).toBe(true);
    expect(await registrations(h, ADMIN)).toBe(0);
    await stop(h);
    expect(await registrations(await broker(), ADMIN)).toBe(0);
  });

  it('rename_realm moves the endpoints to the new name', async () => {
    const h = await broker();
    const m = await manager(h);
    const dev = await client(h, { realm: 'acme', role: 'both' }, 'dev');
    expect((await registerPush(dev, reg('dev', 't'))).ok).toBe(true);
    await m.run({ command: 'remove_realm', realm: 'acme2' });
    expect(await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' })).toMatchObject({
      ok: true,
    });
    await stop(h);
    const restarted = await broker();
    const old = await client(restarted, { realm: 'acme', role: 'both' }, 'dev');
    expect(await unregisterPush(old, reg('dev', 't'))).toEqual({ ok: true, removed: 0 });
    const moved = await client(restarted, { realm: 'acme2', role: 'both' }, 'dev');
    expect(await unregisterPush(moved, reg('dev', 't'))).toEqual({ ok: true, removed: 1 });
  });
});
