/**
 * The settings document a cluster shares (`spec/protocol-admin.md` §12.4, §15;
 * docs/cluster.md "Admin state in a cluster"): an empty cluster is seeded by the first node
 * and joining nodes adopt it; a persisted change on one node is in force on the others (and
 * in their settings files); revocation ends sessions on peers; node-local keys never travel;
 * invalid documents are refused; concurrent changes converge; Redis outages are survived.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stableJson, SignedAction } from '../../shared/admin-signature';
import { ADMIN_TOKEN, authenticate, loggedIn, signedCall } from '../helpers/auth-clients';
import { waitForServerDisconnect, type Harness } from '../helpers/broker-harness';
import { freshPrefix, startAuthNode, type AuthNodeOptions } from '../helpers/cluster-auth-nodes';
import { startRedisServer, type RedisServer } from '../helpers/redis-server';
import { delay, waitUntil } from '../helpers/wait';

const CMD = SignedAction.AUTH_MANAGEMENT_COMMAND;
let redis: RedisServer;
let prefix: string;
let nodes: Harness[] = [];
let dirs: string[] = [];

beforeEach(async () => {
  redis = await startRedisServer();
  prefix = freshPrefix();
  nodes = [];
  dirs = [];
});
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  await redis.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function node(id: string, opts: AuthNodeOptions = {}): Promise<Harness> {
  const h = await startAuthNode(redis.url, prefix, id, opts);
  nodes.push(h);
  return h;
}

const command = (h: Harness, body: Record<string, unknown>) =>
  signedCall(h, CMD, ADMIN_TOKEN, body);

const realmOn = (h: Harness, realm: string) => h.broker.auth.realm(realm);

async function storedRev(): Promise<number> {
  const reader = new Redis(redis.url);
  try {
    return Number(await reader.get(`${prefix}:settings:rev`));
  } finally {
    reader.disconnect();
  }
}

const ALPHA = {
  realms: { default: { required: false }, alpha: { required: true } },
  tokens: [
    { token: ADMIN_TOKEN, realm: '*', role: 'admin' },
    { token: 'alpha-consumer-token', realm: 'alpha', role: 'consumer' },
  ],
};

describe('seeding and joining', () => {
  it('seeds an empty cluster from the first node; later nodes adopt it, keeping their own keys', async () => {
    const a = await node('node-a', {
      auth: ALPHA,
      settings: { limits: { max_pending_authorization_requests: 7 }, allowed_hosts: ['a.local'] },
    });
    const b = await node('node-b', {
      auth: { realms: { beta: { required: true } } },
      settings: { allowed_hosts: ['b.local'] },
    });
    expect(realmOn(b, 'alpha')).toMatchObject({ required: true });
    // The cluster's document replaced B's own auth block.
    expect(realmOn(b, 'beta')).toBeUndefined();
    expect(b.broker.settings.limits?.max_pending_authorization_requests).toBe(7);
    // Node-local keys stay each node's own.
    expect(b.broker.settings.allowed_hosts).toEqual(['b.local']);
    expect(b.broker.getStats().cluster?.node_id).toBe('node-b');
    // A client logs in on B with a token only A was configured with.
    const s = await b.connect();
    expect(await authenticate(s, { token: 'alpha-consumer-token' })).toMatchObject({
      event: 'AUTH_OK',
      realm: 'alpha',
    });
    expect(a.broker.settings.allowed_hosts).toEqual(['a.local']);
    // Adopting is never published back: the seed is still the only revision.
    await delay(300);
    expect(await storedRev()).toBe(1);
  });

  it("publishes a node's edited settings file; peers adopt it without a publish loop", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'swb-cluster-reload-'));
    dirs.push(dir);
    const aFile = path.join(dir, 'node-a.json');
    const bFile = path.join(dir, 'node-b.json');
    const a = await node('node-a', { auth: ALPHA, settingsFile: aFile });
    const b = await node('node-b', { settingsFile: bFile });
    const edited = JSON.parse(await readFile(aFile, 'utf8')) as {
      auth: { realms: Record<string, unknown> };
    };
    edited.auth.realms.edited = { required: true };
    await writeFile(aFile, JSON.stringify(edited, null, 2));
    await waitUntil(() => realmOn(b, 'edited') !== undefined, 'B adopted the edited file', 10_000);
    const rev = await storedRev();
    await delay(500);
    expect(await storedRev()).toBe(rev);
    expect(realmOn(a, 'edited')).toBeDefined();
  });
});

describe('changes made on one node', () => {
  it('are in force on the others: realms, keys, acceptance, management tokens; a late node adopts them', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'swb-cluster-settings-'));
    dirs.push(dir);
    const bFile = path.join(dir, 'node-b.json');
    const a = await node('node-a', { auth: ALPHA });
    const b = await node('node-b', { settingsFile: bFile });
    expect(
      await command(a, { command: 'add_realm', realm: 'acme', required: true, key: 'acme-psk' }),
    ).toMatchObject({ ok: true });
    await waitUntil(() => realmOn(b, 'acme') !== undefined, 'B has realm acme');
    const listed = await command(b, { command: 'get' });
    expect((listed.settings as { realms: Record<string, unknown> }).realms.acme).toMatchObject({
      required: true,
      key_configured: true,
    });
    expect(
      await command(a, { command: 'set_realm_acceptance', realm: 'acme', required: true }),
    ).toMatchObject({ ok: true });
    await waitUntil(() => realmOn(b, 'acme')?.require_acceptance === true, 'acceptance on B');
    expect(
      await command(b, { command: 'add_management_token', token: 'mt-1', realm_prefix: 'org-' }),
    ).toMatchObject({ ok: true });
    await waitUntil(
      () => a.broker.auth.config.management_tokens.some((t) => t.token === 'mt-1'),
      'A has the management token added on B',
    );
    // B rewrote its own settings file with the shared document; no peer's node-local keys.
    let file: Record<string, unknown> = {};
    const acme = () =>
      (file.auth as { realms?: Record<string, unknown> } | undefined)?.realms?.acme;
    for (let i = 0; i < 100; i++) {
      file = JSON.parse(await readFile(bFile, 'utf8')) as Record<string, unknown>;
      if ((acme() as { require_acceptance?: boolean } | undefined)?.require_acceptance) break;
      await delay(50);
    }
    expect(acme()).toMatchObject({ key: 'acme-psk', require_acceptance: true });
    // Its node-local keys are its own (the file was created from B's launcher settings).
    expect(file.cluster).toMatchObject({ node_id: 'node-b' });
    // A node started later adopts everything.
    const c = await node('node-c', { auth: { realms: {} } });
    expect(realmOn(c, 'acme')).toMatchObject({ require_acceptance: true });
    expect(c.broker.auth.config.management_tokens.map((t) => t.token)).toEqual(['mt-1']);
  });

  it("are written through to a peer's SQLite auth store (§14)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'swb-cluster-store-'));
    dirs.push(dir);
    const storeFile = path.join(dir, 'auth.sqlite');
    const a = await node('node-a', { auth: ALPHA });
    const b = await node('node-b', { settings: { auth_store: storeFile } });
    expect(b.broker.auth.realm('alpha')).toBeDefined();
    expect(await command(a, { command: 'add_realm', realm: 'stored' })).toMatchObject({ ok: true });
    await waitUntil(() => realmOn(b, 'stored') !== undefined, 'B has realm stored');
    const db = new Database(storeFile, { readonly: true });
    try {
      const realms = (db.prepare('SELECT name FROM realms').all() as { name: string }[]).map(
        (r) => r.name,
      );
      expect(realms).toEqual(expect.arrayContaining(['alpha', 'stored']));
      const tokens = db.prepare('SELECT token FROM tokens').all() as { token: string }[];
      expect(tokens.map((t) => t.token)).toContain('alpha-consumer-token');
    } finally {
      db.close();
    }
  });

  it('revoking a token on A ends its sessions on B', async () => {
    const a = await node('node-a', { auth: ALPHA });
    const b = await node('node-b');
    const session = await loggedIn(b, { token: 'alpha-consumer-token' });
    const gone = waitForServerDisconnect(session);
    expect(
      await command(a, { command: 'revoke_token', token: 'alpha-consumer-token' }),
    ).toMatchObject({ ok: true });
    await gone;
    const again = await b.connect();
    expect(await authenticate(again, { token: 'alpha-consumer-token' })).toMatchObject({
      event: 'AUTH_FAIL',
    });
  });

  it('keeps every change when nodes change the settings at the same time', async () => {
    const a = await node('node-a', { auth: ALPHA });
    const b = await node('node-b');
    const c = await node('node-c');
    for (let round = 0; round < 3; round++) {
      const replies = await Promise.all([
        command(a, { command: 'add_realm', realm: `from-a-${round}` }),
        command(b, { command: 'add_realm', realm: `from-b-${round}` }),
        command(c, { command: 'set_realm_auth', realm: `from-c-${round}`, required: true }),
        command(a, { command: 'add_management_token', token: `mt-a-${round}`, realm_prefix: 'a-' }),
        command(b, { command: 'add_management_token', token: `mt-b-${round}`, realm_prefix: 'b-' }),
      ]);
      for (const r of replies) expect(r).toMatchObject({ ok: true });
    }
    const wanted = [0, 1, 2].flatMap((r) => [`from-a-${r}`, `from-b-${r}`, `from-c-${r}`]);
    await waitUntil(
      () =>
        nodes.every((n) => wanted.every((realm) => realmOn(n, realm) !== undefined)) &&
        nodes.every((n) => n.broker.auth.config.management_tokens.length === 6),
      'every node holds every change',
      10_000,
    );
    const reader = new Redis(redis.url);
    try {
      const text = await reader.get(`${prefix}:settings`);
      const stored = JSON.parse(text!) as { auth: { realms: unknown } };
      for (const n of nodes) {
        expect(stableJson(n.broker.auth.config.realms)).toBe(stableJson(stored.auth.realms));
      }
    } finally {
      reader.disconnect();
    }
  });
});

describe('documents from Redis', () => {
  it('ignores node-local keys and refuses an invalid document without crashing', async () => {
    const a = await node('node-a', { auth: ALPHA });
    const b = await node('node-b');
    const writer = new Redis(redis.url);
    try {
      const doc = JSON.parse((await writer.get(`${prefix}:settings`))!) as {
        auth: { realms: Record<string, unknown> };
      };
      doc.auth.realms.injected = { required: true };
      const hostile = {
        ...doc,
        cluster: { enabled: false },
        node_id: 'evil',
        mqtt: { enabled: true, port: 1 },
        storage: 'sqlite',
      };
      await writer.set(`${prefix}:settings`, JSON.stringify(hostile));
      await writer.set(`${prefix}:settings:rev`, '1000');
      await writer.publish(
        `${prefix}:settings:changed`,
        JSON.stringify({ node_id: 'x', rev: 1000 }),
      );
      await waitUntil(() => realmOn(b, 'injected') !== undefined, 'B adopted the realm');
      expect(b.broker.settings.mqtt.enabled).toBe(false);
      expect(b.broker.settings.storage).toBe('memory');
      expect(b.broker.getStats().cluster?.node_id).toBe('node-b');

      await writer.set(`${prefix}:settings`, JSON.stringify({ auth: { realms: 5 }, bogus: 1 }));
      await writer.set(`${prefix}:settings:rev`, '2000');
      await writer.publish(
        `${prefix}:settings:changed`,
        JSON.stringify({ node_id: 'x', rev: 2000 }),
      );
      await writer.set(`${prefix}:settings:rev`, '2001');
      await writer.publish(`${prefix}:settings:changed`, 'not json');
    } finally {
      writer.disconnect();
    }
    // Still serving, with the last good settings; the next real change heals the cluster.
    expect(await command(b, { command: 'get' })).toMatchObject({ ok: true });
    expect(realmOn(b, 'injected')).toBeDefined();
    expect(await command(a, { command: 'add_realm', realm: 'healed' })).toMatchObject({ ok: true });
    await waitUntil(() => realmOn(b, 'healed') !== undefined, 'B adopted the next document');
  });
});

describe('Redis outages', () => {
  it('keeps serving with the last settings, then catches up when Redis is back', async () => {
    // A opted in to fail-open nonces (the default refuses signed commands while Redis is out).
    const a = await node('node-a', { auth: ALPHA, cluster: { nonce_fail_open: true } });
    const b = await node('node-b');
    await redis.kill();
    await waitUntil(
      () => nodes.every((n) => n.broker.getStats().cluster?.redis === 'down'),
      'both see redis down',
    );
    // B still admits known clients; A still runs commands (kept locally).
    const s = await b.connect();
    expect(await authenticate(s, { token: 'alpha-consumer-token' })).toMatchObject({
      event: 'AUTH_OK',
    });
    expect(await command(a, { command: 'add_realm', realm: 'during-outage' })).toMatchObject({
      ok: true,
    });
    expect(realmOn(b, 'during-outage')).toBeUndefined();
    await redis.restart();
    await waitUntil(
      () => realmOn(b, 'during-outage') !== undefined,
      'B caught up after the outage',
      15_000,
    );
    // And later changes flow again.
    expect(await command(b, { command: 'add_realm', realm: 'after' })).toMatchObject({ ok: true });
    await waitUntil(() => realmOn(a, 'after') !== undefined, 'A has the later change');
  });
});
