/**
 * The console host's E2EE identities methods (electron/services/identities-console-service.ts;
 * issue 28, console) over a real `ManagerClient`: against a Switchboard broker where a stock
 * socket.io client published a key and prekeys, the identity listed (fingerprint, prekey
 * stock) and its key revoked; the audit rule keeps the revoke's parameters and outcome; against
 * a broker without `list_identities` (answering like the reference: `400 unknown management
 * command`), `unsupported`, asked once per client.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { auditParams, auditResult } from '../../electron/services/audit-rules';
import { createIdentitiesService } from '../../electron/services/identities-console-service';
import { ManagerClient } from '../../electron/services/manager-client';
import { SignedAction } from '../../shared/admin-signature';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import { startBroker, type BrokerSettings } from '../helpers/broker-harness';
import { consumerPayload } from '../helpers/stock-clients';
import { ADMIN_TOKEN, adminSettings } from '../broker/admin/management-client';
import { lookupKey, publishKey } from '../broker/extensions/key-clients';
import { BUNDLE, oneTime, publishPrekeys } from '../broker/extensions/prekey-clients';

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function service(url: string) {
  const client = new ManagerClient({ url, secret: ADMIN_TOKEN, timeoutMs: 3_000 });
  open.push(() => client.close());
  return createIdentitiesService({ pool: { get: () => client } });
}

describe('identities console service', () => {
  it('lists an identity with its key and prekey stock, and revokes the key', async () => {
    const h = await startBroker(adminSettings() as BrokerSettings);
    open.push(() => h.close());
    const alice = await h.connect();
    expect((await authenticate(alice, { realm: 'default', role: 'both' })).event).toBe('AUTH_OK');
    alice.emit(ClientEvent.CONSUMER, consumerPayload('alice'));
    await h.settle(alice);
    expect(
      (await publishKey(alice, { identity: 'alice', key_id: 'k1', public_key: 'PK' })).ok,
    ).toBe(true);
    expect(
      (await publishPrekeys(alice, 'alice', { ...BUNDLE, one_time_prekeys: oneTime(3) })).ok,
    ).toBe(true);

    const identities = service(h.url);
    const target = { connectionId: 'c1', realm: 'default' };
    const list = await identities.listIdentities(target);
    expect(list).toMatchObject({ state: 'ok', realm: 'default', nextCursor: null });
    expect(list.identities).toEqual([
      {
        identity: 'alice',
        keys: [
          {
            keyId: 'k1',
            alg: 'ecdh-es-p256-a256gcm',
            fingerprint: createHash('sha256').update('PK').digest('hex'),
            publishedAt: expect.any(String),
          },
        ],
        principalPrefix: null,
        prekeys: { oneTimeAvailable: 3, signedPrekeyId: 7, updatedAt: expect.any(String) },
        push: [],
        lastWakeAt: null,
        sealedUakMode: null,
      },
    ]);

    const revoked = await identities.revokeIdentityKey({
      ...target,
      identity: 'alice',
      keyId: 'k1',
    });
    expect(revoked).toEqual({
      connectionId: 'c1',
      removedKeys: ['k1'],
      unpinned: false,
      summary: 'Revoked key k1 of alice in default.',
    });
    expect(await lookupKey(alice, 'alice')).toEqual([]);
    await expect(
      identities.revokeIdentityKey({ ...target, identity: 'alice', keyId: 'k1' }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_NOT_FOUND' });
  });

  it('audits a revoke by its parameters and outcome', () => {
    const body = {
      command: 'revoke_identity_key',
      realm: 'r',
      identity: 'bob',
      key_id: 'k',
      unpin: true,
    };
    expect(auditParams('revoke_identity_key', body)).toEqual({
      realm: 'r',
      identity: 'bob',
      key_id: 'k',
      unpin: true,
    });
    expect(
      auditResult('revoke_identity_key', { ok: true, removed_keys: ['k'], unpinned: true }),
    ).toBe('revoked 1 key, unpinned');
  });

  it('reports a broker without list_identities as unsupported, asking it once', async () => {
    let asked = 0;
    const http = createServer();
    const io = new Server(http);
    io.on('connection', (socket) => {
      socket.on(SignedAction.AUTH_MANAGEMENT_COMMAND, (envelope, ack) => {
        if ((envelope as { body: { command: string } }).body.command === 'list_identities') asked++;
        ack({ ok: false, code: 400, message: 'unknown management command' });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    open.push(() => new Promise<void>((resolve) => void io.close(() => resolve())));
    const identities = service(`http://127.0.0.1:${(http.address() as AddressInfo).port}`);
    const input = { connectionId: 'ref', realm: 'default' };
    expect(await identities.listIdentities(input)).toMatchObject({
      state: 'unsupported',
      identities: [],
    });
    expect((await identities.listIdentities(input)).state).toBe('unsupported');
    expect(asked).toBe(1);
  });
});
