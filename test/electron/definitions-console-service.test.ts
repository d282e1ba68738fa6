/**
 * Definitions export/import (issue 27) between two real local brokers (auth on, SQLite auth
 * store): the export of broker A holds realms, settings and token metadata but no secret (keys
 * only as SHA-256, or encrypted under a passphrase); importing into a fresh broker B creates the
 * realms there — a hashed import leaves keys unset and says so, an encrypted one sets keys a real
 * client then authenticates with — each command audited, removals only when ticked, a refused
 * row reported, and a wrong passphrase refused with nothing applied.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_FILE_NAME } from '../../electron/services/activity-log';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';
import { HASH_ONLY_KEY_NOTE, HASH_ONLY_TOKEN_NOTE } from '../../shared/definitions-diff';
import { parseDefinitions } from '../../shared/definitions-document';
import { ClientEvent } from '../../shared/protocol-events';
import { SECRET_MASK } from '../../shared/management-command-params';
import { authenticate } from '../helpers/auth-clients';
import { localAdminToken } from '../support/console-process';
import { connectSocket } from '../support/connect-socket';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const connectionId = LOCAL_CONNECTION_ID;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const PASSPHRASE = 'correct horse battery staple';

describe('definitions export and import between two real brokers', () => {
  let dir: TempDir;
  let a: LocalConsole;
  let b: LocalConsole;
  let urlA: string;
  let urlB: string;
  const sockets: Socket[] = [];
  const keys = { alphaKey: '', alphaManager: '', betaKey: '' };
  const clientToken = 'definitions-client-token-7f3e9a1c55';

  const client = (url: string): Promise<Socket> => connectSocket(url, sockets);

  const start = async (name: string) => {
    const local = createLocalConsole({
      brokerPort: 0,
      dataDir: path.join(dir.path, name),
      pollIntervalMs: 500,
    });
    const status = await local.startBroker();
    return { local, url: `http://127.0.0.1:${status.port}` };
  };

  const realmsOf = async (local: LocalConsole) =>
    (await local.service.listRealms({ connectionId })).realms;

  beforeAll(async () => {
    dir = await makeTempDir();
    ({ local: a, url: urlA } = await start('a'));
    ({ local: b, url: urlB } = await start('b'));
    await a.service.createRealm({
      connectionId,
      realm: 'alpha',
      authRequired: true,
      ephemeral: false,
      acceptanceRequired: false,
    });
    await a.service.createRealm({
      connectionId,
      realm: 'beta',
      authRequired: true,
      ephemeral: true,
      ttl: '2h',
      tokenlessConsumers: true,
    });
    const secret = (realm: string, kind: 'realmKey' | 'managerKey') =>
      a.service.revealGeneratedSecret({ connectionId, kind, realm }).then((s) => s.secret);
    keys.alphaKey = await secret('alpha', 'realmKey');
    keys.alphaManager = await secret('alpha', 'managerKey');
    keys.betaKey = await secret('beta', 'realmKey');
    const requester = await client(urlA);
    await requester.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: 'alpha',
      role: 'producer',
      client_id: 'exporter-1',
      client_name: 'Exporter 1',
      client_token: clientToken,
    });
    const pending = await a.service.listPendingRequests({ connectionId });
    await a.service.decideRequest({
      connectionId,
      requestId: pending.requests[0]!.requestId,
      approved: true,
    });
  });

  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await a?.close();
    await b?.close();
    await dir.remove();
  });

  it('exports realms, settings and token metadata with keys only as SHA-256', async () => {
    const exported = await a.service.exportDefinitions({ connectionId });
    expect(exported.encrypted).toBe(false);
    expect(exported.fileName).toMatch(/^switchboard-definitions-local-\d{4}-\d{2}-\d{2}\.json$/);
    for (const secret of [keys.alphaKey, keys.alphaManager, keys.betaKey, clientToken]) {
      expect(exported.text).not.toContain(secret);
    }
    const parsed = parseDefinitions(exported.text);
    if (!parsed.ok) throw new Error(parsed.message);
    const doc = parsed.document;
    expect(doc.settings.auth_enabled).toBe(true);
    expect(doc.encrypted_keys).toBeUndefined();
    expect(doc.realms.find((r) => r.name === 'alpha')).toMatchObject({
      required: true,
      require_acceptance: false,
      ephemeral: false,
      keys: { key_sha256: sha(keys.alphaKey), manager_key_sha256: sha(keys.alphaManager) },
    });
    expect(doc.realms.find((r) => r.name === 'beta')).toMatchObject({
      ephemeral: true,
      ttl_seconds: 7_200,
      allow_tokenless_consumers: true,
      keys: { key_sha256: sha(keys.betaKey), manager_key_sha256: null },
    });
    expect(doc.tokens).toContainEqual(
      expect.objectContaining({
        realm: 'alpha',
        client_id: 'exporter-1',
        token_hash: sha(clientToken),
      }),
    );
  });

  it('refuses a wrong passphrase and a damaged file, applying nothing', async () => {
    const { text } = await a.service.exportDefinitions({ connectionId, passphrase: PASSPHRASE });
    expect(text).not.toContain(keys.alphaKey);
    const input = { connectionId, text, passphrase: 'not the passphrase' };
    await expect(b.service.previewDefinitions(input)).rejects.toMatchObject({
      code: 'SWB_ERR_VALIDATION',
      message: expect.stringMatching(/Wrong passphrase/),
    });
    await expect(
      b.service.applyDefinitions({ ...input, applyRemovals: true }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/Wrong passphrase/) });
    await expect(
      b.service.applyDefinitions({ connectionId, text: '{"format": 1', applyRemovals: false }),
    ).rejects.toMatchObject({ code: 'SWB_ERR_VALIDATION', message: expect.stringMatching(/JSON/) });
    expect((await realmsOf(b)).map((r) => r.name)).not.toContain('alpha');
    const activity = (await b.service.listActivity({ connectionId })).entries;
    expect(activity.filter((e) => e.action === 'add_realm')).toEqual([]);
  });

  it('a hashed import creates the realms without keys, says so, and reports a refused row', async () => {
    await b.service.createRealm({
      connectionId,
      realm: 'only-in-b',
      authRequired: true,
      ephemeral: false,
    });
    const { text } = await a.service.exportDefinitions({ connectionId });
    const doc = JSON.parse(text) as { realms: Array<Record<string, unknown>> };
    // A realm name the broker refuses (a prototype key): its row must fail visibly.
    doc.realms.push({ ...doc.realms[0], name: 'constructor' });
    const edited = JSON.stringify(doc);
    const preview = await b.service.previewDefinitions({ connectionId, text: edited });
    const item = (id: string) => preview.diff.items.find((i) => i.id === id);
    expect(item('realm:alpha')).toMatchObject({ status: 'added', applicable: true });
    expect(item('realm:alpha')!.notes.join(' ')).toContain(HASH_ONLY_KEY_NOTE);
    expect(item('realm:only-in-b')).toMatchObject({ status: 'removed' });
    expect(item(`token:${sha(clientToken)}`)).toMatchObject({
      status: 'added',
      applicable: false,
      notes: [HASH_ONLY_TOKEN_NOTE],
    });

    const applied = await b.service.applyDefinitions({
      connectionId,
      text: edited,
      applyRemovals: false,
    });
    const result = (id: string) => applied.results.find((r) => r.id === id);
    expect(result('realm:alpha')).toMatchObject({ outcome: 'ok' });
    expect(result('realm:beta')).toMatchObject({ outcome: 'ok' });
    expect(result('realm:constructor')).toMatchObject({
      outcome: 'error',
      commands: [expect.objectContaining({ command: 'add_realm', ok: false, code: 400 })],
    });
    expect(result('realm:only-in-b')).toMatchObject({
      outcome: 'skipped',
      notes: expect.arrayContaining(['removal not ticked']),
    });
    expect(applied.failed).toBe(1);

    const realms = await realmsOf(b);
    expect(realms.find((r) => r.name === 'only-in-b')).toBeDefined();
    expect(realms.find((r) => r.name === 'alpha')).toMatchObject({
      authRequired: true,
      acceptanceRequired: false,
      keyConfigured: false,
      managerKeyConfigured: false,
    });
    expect(realms.find((r) => r.name === 'beta')).toMatchObject({
      ephemeral: true,
      ttlMs: 7_200_000,
      tokenlessConsumers: true,
      keyConfigured: false,
    });
    const added = (await b.service.listActivity({ connectionId })).entries.filter(
      (e) => e.action === 'add_realm',
    );
    expect(added.map((e) => e.target)).toEqual(
      expect.arrayContaining(['alpha', 'beta', 'constructor']),
    );
  });

  it('an encrypted import sets the keys a real client then uses; removals only when ticked', async () => {
    const { text } = await a.service.exportDefinitions({ connectionId, passphrase: PASSPHRASE });
    const preview = await b.service.previewDefinitions({
      connectionId,
      text,
      passphrase: PASSPHRASE,
    });
    const alpha = preview.diff.items.find((i) => i.id === 'realm:alpha')!;
    expect(alpha.status).toBe('changed');
    expect(alpha.changes.map((c) => c.field)).toEqual(['key', 'manager_key']);
    expect(alpha.notes).toEqual([]);
    expect(JSON.stringify(preview)).not.toContain(keys.alphaKey);

    const applied = await b.service.applyDefinitions({
      connectionId,
      text,
      passphrase: PASSPHRASE,
      applyRemovals: true,
    });
    expect(applied.results.find((r) => r.id === 'realm:alpha')).toMatchObject({ outcome: 'ok' });
    expect(applied.results.find((r) => r.id === 'realm:only-in-b')).toMatchObject({
      outcome: 'ok',
      commands: [expect.objectContaining({ command: 'remove_realm', ok: true })],
    });
    const realms = await realmsOf(b);
    expect(realms.map((r) => r.name)).not.toContain('only-in-b');
    expect(realms.find((r) => r.name === 'alpha')).toMatchObject({
      keyConfigured: true,
      managerKeyConfigured: true,
    });
    expect(
      await authenticate(await client(urlB), {
        realm: 'alpha',
        role: 'consumer',
        key: keys.alphaKey,
      }),
    ).toMatchObject({ event: 'AUTH_OK' });
    expect(
      await authenticate(await client(urlB), { realm: 'alpha', role: 'consumer', key: 'wrong' }),
    ).toMatchObject({ event: 'AUTH_FAIL' });

    // Nothing left to do: a second preview shows the realms unchanged.
    const again = await b.service.previewDefinitions({
      connectionId,
      text,
      passphrase: PASSPHRASE,
    });
    expect(again.diff.items.find((i) => i.id === 'realm:alpha')?.status).toBe('unchanged');
    expect(again.diff.items.find((i) => i.id === 'realm:beta')?.status).toBe('unchanged');

    // Audited with the keys as `<set>`, never in clear (B's activity file, A's reveal).
    const activityB = readFileSync(path.join(dir.path, 'b', ACTIVITY_FILE_NAME), 'utf8');
    expect(activityB).toContain('set_realm_key');
    expect(activityB).not.toContain(keys.alphaKey);
    expect(activityB).not.toContain(keys.alphaManager);
    const reveal = (await a.service.listActivity({ connectionId })).entries.find(
      (e) => e.action === 'realm_keys' && e.params.reveal === true,
    );
    expect(reveal).toMatchObject({ ok: true });
    const activityA = readFileSync(path.join(dir.path, 'a', ACTIVITY_FILE_NAME), 'utf8');
    expect(activityA).not.toContain(keys.alphaKey);
  });

  it('works the same on a remote connection, and the Command console masks revealed keys', async () => {
    const remote = await a.service.addConnection({
      name: 'Broker B',
      url: urlB,
      tls: { rejectUnauthorized: true },
      credential: { kind: 'admin' },
      allowInsecureBearer: false,
      secret: localAdminToken(path.join(dir.path, 'b')),
    });
    const { text } = await a.service.exportDefinitions({ connectionId, passphrase: PASSPHRASE });
    // B already holds A's realms and keys (the previous test): nothing differs there.
    const preview = await a.service.previewDefinitions({
      connectionId: remote.id,
      text,
      passphrase: PASSPHRASE,
    });
    for (const id of ['realm:alpha', 'realm:beta']) {
      expect(preview.diff.items.find((i) => i.id === id)?.status).toBe('unchanged');
    }
    const fromB = await a.service.exportDefinitions({ connectionId: remote.id });
    expect(JSON.parse(fromB.text)).toMatchObject({ broker: { name: 'Broker B', url: urlB } });
    expect(fromB.text).toContain(sha(keys.alphaKey));

    const params = { reveal: true };
    const signed = await a.service.commandPreview({ connectionId, command: 'realm_keys', params });
    const ran = await a.service.commandRun({
      connectionId,
      command: 'realm_keys',
      params,
      previewId: signed.previewId,
    });
    const realms = (ran.reply as { realms: Record<string, Record<string, unknown>> }).realms;
    expect(realms.alpha).toMatchObject({
      key: SECRET_MASK,
      manager_key: SECRET_MASK,
      key_sha256: sha(keys.alphaKey),
    });
    expect(JSON.stringify(ran)).not.toContain(keys.alphaKey);
  });
});
