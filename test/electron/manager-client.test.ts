/**
 * ManagerClient without a broker (timeouts, error mapping), the wire → ConsoleApi mappings of
 * the manager pool, and the file-backed SecretStore.
 */
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { brokerError, ManagerClient } from '../../electron/services/manager-client';
import { toAuthorizationRequest, toRealmList } from '../../electron/services/manager-pool';
import {
  ensureLocalAdminToken,
  FileSecretStore,
  LOCAL_ADMIN_TOKEN_SECRET,
  SECRETS_FILE_NAME,
} from '../../electron/services/secret-store';
import { SwitchboardError } from '../../shared/error-catalogue';
import { makeTempDir, type TempDir } from '../support/temp-dir';

describe('ManagerClient', () => {
  it('fails with SWB_ERR_BROKER_UNREACHABLE, without the secret, when nothing answers', async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new ManagerClient({
      url: `http://127.0.0.1:${port}`,
      secret: 'the-admin-secret',
      timeoutMs: 300,
    });
    try {
      const error = await client.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SwitchboardError);
      expect((error as SwitchboardError).code).toBe('SWB_ERR_BROKER_UNREACHABLE');
      expect((error as Error).message).not.toContain('the-admin-secret');
    } finally {
      client.close();
    }
  });

  it('maps broker refusals onto the error catalogue', () => {
    expect(brokerError('X', { ok: false, code: 401, message: 'Invalid proof' }).code).toBe(
      'SWB_ERR_UNAUTHORIZED',
    );
    expect(brokerError('X', { ok: false, code: 404, message: 'gone' }).code).toBe(
      'SWB_ERR_NOT_FOUND',
    );
    expect(brokerError('X', { ok: false, code: 400 }).message).toBe(
      'Broker refused X (400): no reason given',
    );
    expect(brokerError('X', { ok: false, code: 503 }).code).toBe('SWB_ERR_INTERNAL');
    // `add_realm` of an existing realm (spec/protocol-admin.md §8.2): 409, shown as a conflict.
    const conflict = brokerError('add_realm', {
      ok: false,
      code: 409,
      message: 'realm already exists',
    });
    expect(conflict.code).toBe('SWB_ERR_CONFLICT');
    expect(conflict.message).toBe('Broker refused add_realm (409): realm already exists');
  });
});

describe('wire mappings', () => {
  it('drops the token hash and renders the challenge as JSON text', () => {
    const request = toAuthorizationRequest({
      request_id: 'authreq-1',
      status: 'pending',
      realm: 'r',
      role: 'consumer',
      client_id: 'c',
      client_name: 'C',
      client_token_hash: 'f'.repeat(64),
      challenge_response: { a: 1 },
      created_at: '2026-01-01T00:00:00.000Z',
      decided_at: null,
      decision_reason: null,
    });
    expect(request).toEqual({
      requestId: 'authreq-1',
      status: 'pending',
      realm: 'r',
      role: 'consumer',
      clientId: 'c',
      clientName: 'C',
      challenge: '{"a":1}',
      createdAt: Date.parse('2026-01-01T00:00:00.000Z'),
      decidedAt: null,
      decisionReason: null,
    });
  });

  it('resolves realm requirements as §3.5 does', () => {
    const list = toRealmList('local', {
      enabled: true,
      realms: {
        open: { required: false },
        keyed: { key_configured: true, manager_key_configured: true },
        waived: { require_acceptance: false, key_configured: true, require_key: false },
        temp: { ephemeral: true, expires_at: '2026-01-01T01:00:00.000Z' },
      },
    });
    expect(list.realms.map((r) => r.name)).toEqual(['keyed', 'open', 'temp', 'waived']);
    const byName = Object.fromEntries(list.realms.map((r) => [r.name, r]));
    expect(byName.open).toMatchObject({ authRequired: false, acceptanceRequired: false });
    expect(byName.keyed).toMatchObject({
      authRequired: true,
      keyRequired: true,
      managerKeyConfigured: true,
      acceptanceRequired: true,
    });
    expect(byName.waived).toMatchObject({ keyConfigured: true, keyRequired: false });
    expect(byName.waived?.acceptanceRequired).toBe(false);
    expect(byName.temp?.expiresAt).toBe(Date.parse('2026-01-01T01:00:00.000Z'));
    // Issue 20: who may consume.
    expect(byName.open?.consumerAccess).toBe('open');
    expect(byName.keyed?.consumerAccess).toBe('token-or-key');
    expect(byName.waived?.consumerAccess).toBe('token-or-key');
    expect(byName.temp).toMatchObject({ consumerAccess: 'token', tokenlessConsumers: false });
    const reference = toRealmList('local', {
      enabled: true,
      realms: {
        ref: { allow_tokenless_consumers: true },
        refKeyed: { allow_tokenless_consumers: true, key_configured: true },
        refOpen: { required: false, allow_tokenless_consumers: true },
      },
    }).realms;
    expect(reference.map((r) => [r.name, r.consumerAccess, r.tokenlessConsumers])).toEqual([
      ['ref', 'tokenless', true],
      ['refKeyed', 'token-or-key', true],
      ['refOpen', 'open', true],
    ]);
    // Auth off: nothing is required anywhere.
    expect(toRealmList('local', { enabled: false, realms: { x: {} } }).realms[0]).toMatchObject({
      authRequired: false,
      acceptanceRequired: false,
      consumerAccess: 'open',
    });
  });
});

describe('FileSecretStore', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('generates the admin token once and keeps it in a 0600 file', () => {
    const store = new FileSecretStore(dir.path);
    expect(store.get(LOCAL_ADMIN_TOKEN_SECRET)).toBeNull();
    const token = ensureLocalAdminToken(store);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(ensureLocalAdminToken(new FileSecretStore(dir.path))).toBe(token);
    const file = path.join(dir.path, SECRETS_FILE_NAME);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    chmodSync(file, 0o644);
    expect(store.get(LOCAL_ADMIN_TOKEN_SECRET)).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(store.description).not.toContain(token);
  });

  it('refuses a file that is not a secrets file', () => {
    writeFileSync(path.join(dir.path, SECRETS_FILE_NAME), '{"hello":1}', { mode: 0o600 });
    expect(() => new FileSecretStore(dir.path).get('x')).toThrow(/not a console secrets file/);
  });
});
