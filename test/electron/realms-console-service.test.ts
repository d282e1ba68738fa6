/**
 * The Realms / tokens / queue / activity methods against the real local broker (auth on): each
 * is a signed management command with the broker's observable effect, and the audit log records
 * every command with its result but never a secret.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ActivityLog, auditParams } from '../../electron/services/activity-log';
import { ManagerClient } from '../../electron/services/manager-client';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import type { SwitchboardError } from '../../shared/error-catalogue';
import { ClientEvent } from '../../shared/protocol-events';
import { authenticate } from '../helpers/auth-clients';
import { localAdminToken } from '../support/console-process';
import { makeTempDir } from '../support/temp-dir';
import { localConsoleFixture } from '../support/local-console-fixture';

const connectionId = LOCAL_CONNECTION_ID;

describe('realms console service on the real local broker', () => {
  const fx = localConsoleFixture({ pollIntervalMs: 500 });

  const realm = async (name: string) =>
    (await fx.local.service.listRealms({ connectionId })).realms.find((r) => r.name === name);

  it('creates, converts and flags realms', async () => {
    await fx.local.service.createRealm({
      connectionId,
      realm: 'team-a',
      authRequired: true,
      ephemeral: true,
      ttl: '2h',
    });
    const created = await realm('team-a');
    expect(created).toMatchObject({ ephemeral: true, authRequired: true });
    expect(created!.expiresAt! - Date.now()).toBeGreaterThan(7_000_000);
    await fx.local.service.setRealmLifetime({ connectionId, realm: 'team-a', ephemeral: false });
    expect(await realm('team-a')).toMatchObject({ ephemeral: false, expiresAt: null });
    await fx.local.service.setRealmFlag({
      connectionId,
      realm: 'team-a',
      flag: 'acceptance',
      value: false,
    });
    expect((await realm('team-a'))?.acceptanceRequired).toBe(false);
    await fx.local.service.setRealmFlag({
      connectionId,
      realm: 'team-a',
      flag: 'keyRequired',
      value: true,
    });
    expect((await realm('team-a'))?.keyRequired).toBe(true);
    await fx.local.service.setRealmFlag({
      connectionId,
      realm: 'team-a',
      flag: 'auth',
      value: false,
    });
    expect((await realm('team-a'))?.authRequired).toBe(false);
  });

  it('creates a realm closed to token-less consumers; the tokenlessConsumers flag opens it (issue 20)', async () => {
    const created = await fx.local.service.createRealm({
      connectionId,
      realm: 'readers',
      authRequired: true,
      ephemeral: false,
    });
    // No key yet: the message says what the badge says (newcomer trial finding 26).
    expect(created.summary).toContain('consumers need a token)');
    expect(await realm('readers')).toMatchObject({
      consumerAccess: 'token',
      tokenlessConsumers: false,
    });
    const consumer = { realm: 'readers', role: 'consumer' };
    expect(await authenticate(await fx.client(), consumer)).toMatchObject({ code: 401 });
    const opened = await fx.local.service.setRealmFlag({
      connectionId,
      realm: 'readers',
      flag: 'tokenlessConsumers',
      value: true,
    });
    expect(opened.summary).toContain('reference mode');
    expect(await realm('readers')).toMatchObject({ consumerAccess: 'tokenless' });
    expect(await authenticate(await fx.client(), consumer)).toMatchObject({ event: 'AUTH_OK' });
    await fx.local.service.setRealmFlag({
      connectionId,
      realm: 'readers',
      flag: 'tokenlessConsumers',
      value: false,
    });
    expect(await authenticate(await fx.client(), consumer)).toMatchObject({ code: 401 });
    await fx.local.service.createRealm({
      connectionId,
      realm: 'readers-ref',
      authRequired: true,
      ephemeral: false,
      tokenlessConsumers: true,
    });
    expect(await realm('readers-ref')).toMatchObject({ consumerAccess: 'tokenless' });
    expect(
      await authenticate(await fx.client(), { realm: 'readers-ref', role: 'consumer' }),
    ).toMatchObject({ event: 'AUTH_OK' });
  });

  it('generates and rotates a PSK that real clients must present', async () => {
    await fx.local.service.createRealm({
      connectionId,
      realm: 'keyed',
      authRequired: true,
      ephemeral: false,
    });
    const first = await fx.local.service.revealGeneratedSecret({
      connectionId,
      kind: 'realmKey',
      realm: 'keyed',
    });
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(
      await authenticate(await fx.client(), {
        realm: 'keyed',
        role: 'consumer',
        key: first.secret,
      }),
    ).toMatchObject({ event: 'AUTH_OK' });
    const second = await fx.local.service.revealGeneratedSecret({
      connectionId,
      kind: 'realmKey',
      realm: 'keyed',
    });
    expect(second.secret).not.toBe(first.secret);
    expect(
      await authenticate(await fx.client(), {
        realm: 'keyed',
        role: 'consumer',
        key: first.secret,
      }),
    ).toMatchObject({ event: 'AUTH_FAIL', code: 401 });
    expect(
      await authenticate(await fx.client(), {
        realm: 'keyed',
        role: 'consumer',
        key: second.secret,
      }),
    ).toMatchObject({ event: 'AUTH_OK' });
    // "Require key" off and on again changes only the requirement (set_realm_require_key,
    // issue 27): the same key admits a consumer afterwards.
    for (const value of [false, true]) {
      await fx.local.service.setRealmFlag({
        connectionId,
        realm: 'keyed',
        flag: 'keyRequired',
        value,
      });
      expect(await realm('keyed')).toMatchObject({ keyConfigured: true, keyRequired: value });
    }
    expect(
      await authenticate(await fx.client(), {
        realm: 'keyed',
        role: 'consumer',
        key: second.secret,
      }),
    ).toMatchObject({ event: 'AUTH_OK' });
    const manager = await fx.local.service.revealGeneratedSecret({
      connectionId,
      kind: 'managerKey',
      realm: 'keyed',
    });
    expect((await realm('keyed'))?.managerKeyConfigured).toBe(true);
    await fx.local.service.clearRealmSecret({ connectionId, realm: 'keyed', kind: 'managerKey' });
    await fx.local.service.clearRealmSecret({ connectionId, realm: 'keyed', kind: 'realmKey' });
    expect(await realm('keyed')).toMatchObject({
      managerKeyConfigured: false,
      keyConfigured: false,
    });

    // The audit log holds every command, never a secret.
    const log = readFileSync(
      fx.local.service && path.join(fx.dir.path, 'data', 'console-activity.jsonl'),
      'utf8',
    );
    for (const secret of [first.secret, second.secret, manager.secret])
      expect(log).not.toContain(secret);
    const { entries } = await fx.local.service.listActivity({ connectionId });
    const keyEntries = entries.filter((e) => e.action === 'set_realm_key' && e.target === 'keyed');
    expect(keyEntries.map((e) => e.params.key)).toEqual(['<cleared>', '<set>', '<set>']);
    expect(entries.some((e) => e.action === 'get' || e.action === 'AUTHORIZATION_NEXT')).toBe(
      false,
    );
    expect(entries[0]?.actor).toMatch(/^console/);
  });

  it('lists the pending queue, decides, lists and revokes tokens (disconnecting the client)', async () => {
    const requester = await fx.client();
    const token = 'queue-client-token-5be3a9d4c0f1aa';
    await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'keyed',
      role: 'producer',
      client_id: 'q-1',
      client_name: 'Q 1',
      client_token: token,
    });
    await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'team-a',
      role: 'consumer',
      client_id: 'q-2',
      client_name: 'Q 2',
      client_token: `${token}-2`,
    });
    const queue = await fx.local.service.listPendingRequests({ connectionId });
    expect(queue.requests.map((r) => r.clientId)).toEqual(['q-1', 'q-2']);
    expect(
      (await fx.local.service.listPendingRequests({ connectionId, realm: 'team-a' })).requests,
    ).toHaveLength(1);
    await fx.local.service.decideRequest({
      connectionId,
      requestId: queue.requests[0]!.requestId,
      approved: true,
      role: 'both',
    });
    const tokens = await fx.local.service.listTokens({ connectionId });
    const entry = tokens.tokens.find((t) => t.clientId === 'q-1');
    expect(entry).toMatchObject({
      realm: 'keyed',
      role: 'both',
      clientName: 'Q 1',
      globalAdmin: false,
    });
    expect(tokens.tokens.some((t) => t.globalAdmin)).toBe(true);
    const session = await fx.client();
    expect(await authenticate(session, { token, realm: 'keyed' })).toMatchObject({
      event: 'AUTH_OK',
    });
    const gone = new Promise<void>((resolve) => session.once('disconnect', () => resolve()));
    await fx.local.service.revokeToken({ connectionId, tokenHash: entry!.tokenHash });
    await gone;
    const decide = (await fx.local.service.listActivity({ connectionId })).entries.find(
      (e) => e.action === 'AUTHORIZATION_DECIDE',
    );
    expect(decide).toMatchObject({ ok: true, params: { approved: true, role: 'both' } });
  });

  it('management tokens and validators', async () => {
    const generated = await fx.local.service.revealGeneratedSecret({
      connectionId,
      kind: 'managementToken',
      realmPrefix: 'ci-',
      ephemeralOnly: true,
      maxTtl: '1h',
    });
    const list = await fx.local.service.listTokens({ connectionId });
    expect(list.managementTokens).toEqual([
      expect.objectContaining({ realmPrefix: 'ci-', ephemeralOnly: true, maxTtl: '1h' }),
    ]);
    expect(JSON.stringify(list)).not.toContain(generated.secret);
    await fx.local.service.revokeManagementToken({
      connectionId,
      tokenHash: list.managementTokens[0]!.tokenHash,
    });
    expect((await fx.local.service.listTokens({ connectionId })).managementTokens).toEqual([]);
    const entries = (await fx.local.service.listActivity({ connectionId })).entries;
    expect(entries.find((e) => e.action === 'add_management_token')?.params.token).toBe('<set>');

    const validatorSecret = 'validator-shared-secret-41d2a9';
    await fx.local.service.setValidator({
      connectionId,
      scope: 'prefix',
      target: 'ci-',
      url: 'https://auth.example.test/check',
      secret: validatorSecret,
    });
    await fx.local.service.setValidator({
      connectionId,
      scope: 'realm',
      target: 'keyed',
      url: 'http://127.0.0.1:9/v',
    });
    const withValidators = await fx.local.service.listTokens({ connectionId });
    expect(withValidators.validators).toEqual([
      { scope: 'realm', target: 'keyed', url: 'http://127.0.0.1:9/v', secretConfigured: false },
      {
        scope: 'prefix',
        target: 'ci-',
        url: 'https://auth.example.test/check',
        secretConfigured: true,
      },
    ]);
    expect(JSON.stringify(withValidators)).not.toContain(validatorSecret);
    await fx.local.service.removeValidator({ connectionId, scope: 'prefix', target: 'ci-' });
    await fx.local.service.removeValidator({ connectionId, scope: 'realm', target: 'keyed' });
    expect((await fx.local.service.listTokens({ connectionId })).validators).toEqual([]);
    const audit = JSON.stringify(await fx.local.service.listActivity({ connectionId }));
    expect(audit).not.toContain(validatorSecret);
    expect(audit).toContain('"auth_secret":"<set>"');
  });

  it('keeps one manager client working past the broker pre-auth budget (64 events)', async () => {
    const manager = new ManagerClient({
      url: fx.url,
      secret: localAdminToken(path.join(fx.dir.path, 'data')),
      timeoutMs: 3_000,
    });
    try {
      for (let round = 0; round < 30; round += 1) {
        // Concurrent calls, so a socket is retired while others are still in flight.
        const replies = await Promise.all([
          manager.next(),
          manager.next('keyed'),
          manager.command({ command: 'get' }),
        ]);
        expect(replies[2].ok).toBe(true);
      }
    } finally {
      manager.close();
    }
  }, 60_000);

  it('removes a realm only with its name typed, and records failures', async () => {
    const wrong = await fx.local.service
      .removeRealm({ connectionId, realm: 'team-a', confirmName: 'team' })
      .catch((e: unknown) => e);
    expect((wrong as SwitchboardError).code).toBe('SWB_ERR_VALIDATION');
    await fx.local.service.removeRealm({ connectionId, realm: 'team-a', confirmName: 'team-a' });
    expect(await realm('team-a')).toBeUndefined();
    await expect(
      fx.local.service.createRealm({
        connectionId,
        realm: 'keyed',
        authRequired: true,
        ephemeral: false,
      }),
    ).rejects.toThrow(/realm already exists/);
    const [latest] = (await fx.local.service.listActivity({ connectionId, limit: 1 })).entries;
    expect(latest).toMatchObject({ action: 'add_realm', ok: false });
    expect(latest?.error).toContain('realm already exists');
  });

  it('lists realms clients use without a settings entry, beside the configured ones', async () => {
    const requester = await fx.client();
    const token = 'lab-consumer-token-0123456789abcdef';
    const asked = (await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'lab-unlisted',
      role: 'consumer',
      client_id: 'lab-1',
      client_name: 'Lab 1',
      client_token: token,
    })) as { ok: boolean; request_id: string; message?: string };
    expect(asked).toMatchObject({ ok: true });
    await fx.local.service.decideRequest({
      connectionId,
      requestId: asked.request_id,
      approved: true,
    });
    const consumer = await fx.client();
    expect(await authenticate(consumer, { realm: 'lab-unlisted', token })).toMatchObject({
      event: 'AUTH_OK',
      realm: 'lab-unlisted',
    });
    consumer.emit(ClientEvent.CONSUMER, { name: 'lab-1' });
    await expect
      .poll(async () => (await fx.local.service.listRealms({ connectionId })).inUse, {
        timeout: 10_000,
      })
      .toContainEqual({ name: 'lab-unlisted', producers: 0, consumers: 1 });
    const list = await fx.local.service.listRealms({ connectionId });
    expect(list.realms.map((r) => r.name)).not.toContain('lab-unlisted');
    // Configured realms are not repeated as "in use".
    expect(list.inUse.map((r) => r.name)).not.toContain('default');
    consumer.close();
    await expect
      .poll(async () => (await fx.local.service.listRealms({ connectionId })).inUse, {
        timeout: 10_000,
      })
      .not.toContainEqual(expect.objectContaining({ name: 'lab-unlisted' }));
  });
});

describe('ActivityLog', () => {
  it('keeps secrets out by schema and stays bounded', async () => {
    const dir = await makeTempDir();
    try {
      expect(
        auditParams('add_realm', {
          realm: 'r',
          key: 'psk-1',
          manager_key: '',
          extra: 'x',
          ttl: '2h',
        }),
      ).toEqual({
        realm: 'r',
        key: '<set>',
        manager_key: '<cleared>',
        ttl: '2h',
      });
      expect(auditParams('unknown_command', { token: 'secret' })).toEqual({});
      const log = new ActivityLog({ dataDir: dir.path, maxEntries: 10, actor: 'console (test)' });
      for (let i = 0; i < 40; i += 1) {
        log.record({
          at: i,
          connectionId: 'local',
          action: 'set_realm_auth',
          target: `r${i}`,
          params: {},
          ok: true,
          error: null,
          durationMs: 1,
        });
      }
      const lines = readFileSync(log.file!, 'utf8').trim().split('\n');
      expect(lines.length).toBeLessThanOrEqual(15);
      expect(log.list({ limit: 3 }).map((e) => e.target)).toEqual(['r39', 'r38', 'r37']);
      // A new log on the same file continues the sequence.
      const again = new ActivityLog({ dataDir: dir.path, actor: 'x' });
      expect(
        again.record({
          at: 1,
          connectionId: 'local',
          action: 'remove_realm',
          target: 'z',
          params: {},
          ok: true,
          error: null,
          durationMs: 0,
        }).seq,
      ).toBe(41);
    } finally {
      await dir.remove();
    }
  });
});
