/**
 * Sealed sender and the realm commands (`spec/protocol-extensions.md` §4.9, §10 with its Fix):
 * `remove_realm` deletes the sealed inbox, also from the SQLite file; `rename_realm` moves the
 * inbox and the UAK records, so the recipient drains under the new name. Also the `sealed`
 * settings: the per-IP and per-recipient budgets (Note 4-E) and `uniform_errors` (Note 4-D).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerEvent } from '../../../../shared/protocol-events';
import { consumerIn, loggedIn } from '../../../helpers/auth-clients';
import { startBroker, type BrokerSettings, type Harness } from '../../../helpers/broker-harness';
import { waitFor } from '../../../helpers/wait';
import { makeTempDir, type TempDir } from '../../../support/temp-dir';
import { adminSettings, manager } from '../../admin/management-client';
import {
  b64,
  mintMaterial,
  sendSealed,
  sealedSubscribe,
  setUak,
  uakOf,
  type SealedMaterial,
} from './sealed-clients';

const ON = { required: false, e2ee: 'required' };
let dir: TempDir;
let material: SealedMaterial;
const open: Harness[] = [];
beforeEach(async () => {
  dir = await makeTempDir();
  material = mintMaterial();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  await dir.remove();
});

async function broker(
  extra: Record<string, unknown> = {},
  acme: Record<string, unknown> = ON,
): Promise<Harness> {
  const settings = adminSettings(
    { storage: 'sqlite', storage_options: { filename: join(dir.path, 's.sqlite') }, ...extra },
    { realms: { default: ON, acme, acme2: ON } },
  ) as BrokerSettings;
  const h = await startBroker(settings, { env: material.env });
  open.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

/** Bob in `realm` sets his UAK and leaves; one blob is queued for him. */
async function queueForBob(h: Harness, realm: string): Promise<void> {
  const bob = await consumerIn(h, { realm, role: 'both' }, 'bob');
  await h.settle(bob);
  expect(await setUak(bob, 'bob', uakOf(9))).toMatchObject({ ok: true });
  await h.disconnect(bob);
  const anon = await loggedIn(h, { realm: 'default', role: 'both' });
  expect(await sendSealed(anon, realm, 'bob', uakOf(9), b64('kept'), 'k1')).toMatchObject({
    delivered: 'queued',
  });
  await h.settle(anon);
}

describe('sealed inbox and realm commands', () => {
  it('remove_realm deletes the inbox, also from the SQLite file', async () => {
    const h = await broker();
    await queueForBob(h, 'acme');
    const m = await manager(h);
    expect((await m.run({ command: 'remove_realm', realm: 'acme' })).ok).toBe(true);
    expect((await m.run({ command: 'add_realm', realm: 'acme', ...ON })).ok).toBe(true);
    const bob = await consumerIn(h, { realm: 'acme', role: 'both' }, 'bob');
    await h.settle(bob);
    expect(await sealedSubscribe(bob, 'bob')).toEqual({ ok: true, replayed: 0, more: false });
    await stop(h);
    const restarted = await broker();
    const later = await consumerIn(restarted, { realm: 'acme', role: 'both' }, 'bob');
    await restarted.settle(later);
    expect(await sealedSubscribe(later, 'bob')).toEqual({ ok: true, replayed: 0, more: false });
  });

  it('rename_realm moves the inbox and the UAK to the new name', async () => {
    const h = await broker();
    await queueForBob(h, 'acme');
    const m = await manager(h);
    await m.run({ command: 'remove_realm', realm: 'acme2' });
    expect(await m.run({ command: 'rename_realm', from: 'acme', to: 'acme2' })).toMatchObject({
      ok: true,
    });
    const bob = await consumerIn(h, { realm: 'acme2', role: 'both' }, 'bob');
    await h.settle(bob);
    const got = waitFor(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sealedSubscribe(bob, 'bob')).toEqual({ ok: true, replayed: 1, more: false });
    expect(await got).toEqual({ blob: b64('kept'), msg_id: 'k1' });
    const anon = await loggedIn(h, { realm: 'default', role: 'both' });
    const live = waitFor(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(anon, 'acme2', 'bob', uakOf(9), b64('now'), 'n1')).toMatchObject({
      delivered: 'online',
    });
    expect(await live).toEqual({ blob: b64('now'), msg_id: 'n1' });
  });
});

describe('sealed settings', () => {
  it('Note 4-E: per-recipient and per-IP budgets hold across reconnecting senders', async () => {
    const h = await broker({
      sealed: { sends_per_minute_per_recipient: 2, sends_per_minute_per_ip: 4 },
    });
    const bob = await consumerIn(h, { realm: 'default', role: 'both' }, 'bob');
    await h.settle(bob);
    await setUak(bob, 'bob', undefined, 'unrestricted');
    const carol = await consumerIn(h, { realm: 'default', role: 'both' }, 'carol');
    await h.settle(carol);
    await setUak(carol, 'carol', undefined, 'unrestricted');
    const first = await loggedIn(h, { realm: 'default', role: 'both' });
    const second = await loggedIn(h, { realm: 'default', role: 'both' });
    expect(await sendSealed(first, 'default', 'bob', undefined, b64('1'), '1')).toMatchObject({
      ok: true,
    });
    expect(await sendSealed(second, 'default', 'bob', undefined, b64('2'), '2')).toMatchObject({
      ok: true,
    });
    expect(await sendSealed(second, 'default', 'bob', undefined, b64('3'), '3')).toEqual({
      ok: false,
      code: 429,
      message: 'sealed send rate exceeded',
    });
    // The fourth call from this IP still passes (to carol); the fifth is over the IP budget.
    expect(await sendSealed(first, 'default', 'carol', undefined, b64('4'), '4')).toMatchObject({
      ok: true,
    });
    const third = await loggedIn(h, { realm: 'default', role: 'both' });
    expect(await sendSealed(third, 'default', 'carol', undefined, b64('5'), '5')).toMatchObject({
      code: 429,
    });
  });

  it('Note 4-D: uniform_errors hides unknown recipients and presence', async () => {
    const h = await broker({ sealed: { uniform_errors: true } });
    const bob = await consumerIn(h, { realm: 'default', role: 'both' }, 'bob');
    await h.settle(bob);
    await setUak(bob, 'bob', uakOf(9));
    const anon = await loggedIn(h, { realm: 'default', role: 'both' });
    const notAuthorised = { ok: false, code: 403, message: 'not authorised' };
    expect(await sendSealed(anon, 'default', 'ghost', uakOf(9), b64('g'), 'g')).toEqual(
      notAuthorised,
    );
    expect(await sendSealed(anon, 'nowhere', 'bob', uakOf(9), b64('g'), 'g')).toEqual(
      notAuthorised,
    );
    expect(await sendSealed(anon, 'default', 'bob', uakOf(1), b64('g'), 'g')).toEqual(
      notAuthorised,
    );
    const got = waitFor(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(anon, 'default', 'bob', uakOf(9), b64('u'), 'u')).toEqual({
      ok: true,
      delivered: 'queued',
    });
    expect(await got).toEqual({ blob: b64('u'), msg_id: 'u' });
  });

  it('Note 4-G: a same-realm realm refuses senders of other realms', async () => {
    const h = await broker({}, { ...ON, sealed_accept_from: 'same-realm' });
    const bob = await consumerIn(h, { realm: 'acme', role: 'both' }, 'bob');
    await h.settle(bob);
    await setUak(bob, 'bob', undefined, 'unrestricted');
    const outsider = await loggedIn(h, { realm: 'default', role: 'both' });
    expect(await sendSealed(outsider, 'acme', 'bob', undefined, b64('o'), 'o')).toEqual({
      ok: false,
      code: 403,
      message: 'not authorised',
    });
    const insider = await loggedIn(h, { realm: 'acme', role: 'both' });
    const got = waitFor(bob, ServerEvent.SEALED_MESSAGE);
    expect(await sendSealed(insider, 'acme', 'bob', undefined, b64('i'), 'i')).toMatchObject({
      delivered: 'online',
    });
    expect(await got).toEqual({ blob: b64('i'), msg_id: 'i' });
  });
});
