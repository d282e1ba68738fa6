/**
 * The layered connection test and the remote connections service against real brokers: every
 * layer ok; a wrong token (credential and HTTP refused); the HTTP API switched off; nothing
 * listening; a broker behind a base path (through a reverse proxy); a realm manager key; the
 * clear-text bearer refusal of the poller. No result holds the secret.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../electron/services/connection-manager';
import { ConnectionProfileStore } from '../../electron/services/connection-profiles';
import { createConnectionsService } from '../../electron/services/connections-console-service';
import { testConnection } from '../../electron/services/connection-tester';
import { ManagerPool } from '../../electron/services/manager-pool';
import { MetricsPoller } from '../../electron/services/metrics-poller';
import { FileSecretStore } from '../../electron/services/secret-store';
import type { ConnectionTestReport } from '../../shared/console-api-connections';
import { type Harness } from '../helpers/broker-harness';
import { startAuthBroker } from '../helpers/auth-clients';
import { startBasePathProxy, type BasePathProxy } from '../support/base-path-proxy';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const ADMIN = 'remote-admin-token-0123456789abcdef';
const MANAGER_KEY = 'fleet-manager-key-5511aa';

const statuses = (report: ConnectionTestReport) =>
  Object.fromEntries(report.layers.map((layer) => [layer.layer, layer.status]));
const messageOf = (report: ConnectionTestReport, layer: string) =>
  report.layers.find((entry) => entry.layer === layer)?.message ?? '';

describe('remote connections against real brokers', () => {
  let dir: TempDir;
  let broker: Harness;
  let noHttp: Harness;
  let proxy: BasePathProxy;
  let manager: ConnectionManager;
  let store: ConnectionProfileStore;
  let service: ReturnType<typeof createConnectionsService>;

  beforeAll(async () => {
    dir = await makeTempDir();
    const auth = {
      tokens: [{ token: ADMIN, realm: '*', role: 'admin' }],
      realms: { default: { required: false }, fleet: { manager_key: MANAGER_KEY } },
    };
    broker = await startAuthBroker(auth, { http_api: { enabled: true } });
    noHttp = await startAuthBroker(auth, { http_api: { enabled: false } });
    proxy = await startBasePathProxy(broker.port, '/broker-a');
    const secrets = new FileSecretStore(dir.path);
    manager = new ConnectionManager({ intervalMs: 100, timeoutMs: 3_000 });
    store = new ConnectionProfileStore(dir.path, secrets);
    service = createConnectionsService({
      connections: manager,
      profiles: store,
      secrets,
      testTimeoutMs: 4_000,
    });
  }, 30_000);

  afterAll(async () => {
    manager.close();
    await proxy.close();
    await broker.close();
    await noHttp.close();
    await dir.remove();
  });

  const add = (name: string, url: string, secret: string | undefined, extra = {}) =>
    service.addConnection({
      name,
      url,
      tls: { rejectUnauthorized: true },
      credential: { kind: 'admin' },
      allowInsecureBearer: false,
      ...(secret ? { secret } : {}),
      ...extra,
    });

  it('reports every layer ok, and lists the connection online without its secret', async () => {
    const added = await add('Remote', broker.url, ADMIN);
    expect(added).toMatchObject({ builtIn: false, hasSecret: true, url: broker.url });
    const report = await service.testConnection({ connectionId: added.id });
    expect(statuses(report)).toEqual({ socket: 'ok', credential: 'ok', http: 'ok' });
    expect(report.ok).toBe(true);
    expect(messageOf(report, 'credential')).toBe('Admin token accepted (signed get)');
    await expect
      .poll(async () => (await service.listConnections({})).find((c) => c.id === added.id)?.state)
      .toBe('online');
    const everything = JSON.stringify([report, await service.listConnections({})]);
    expect(everything).not.toContain(ADMIN);
    expect(JSON.stringify(await service.exportConnections({}))).not.toContain(ADMIN);
  });

  it('says which layer refused a wrong token', async () => {
    const added = await add('Wrong token', broker.url, 'not-the-admin-token-000');
    const report = await service.testConnection({ connectionId: added.id });
    expect(statuses(report)).toEqual({ socket: 'ok', credential: 'failed', http: 'failed' });
    expect(messageOf(report, 'credential')).toMatch(
      /Broker refused AUTH_MANAGEMENT_COMMAND \(401\)/,
    );
    expect(messageOf(report, 'http')).toBe('The HTTP API refused the admin token (HTTP 401)');
    expect(JSON.stringify(report)).not.toContain('not-the-admin-token-000');
  });

  it('says plainly when the HTTP API is switched off', async () => {
    const added = await add('No HTTP', noHttp.url, ADMIN);
    const report = await service.testConnection({ connectionId: added.id });
    expect(statuses(report)).toEqual({ socket: 'ok', credential: 'ok', http: 'failed' });
    expect(messageOf(report, 'http')).toMatch(/HTTP API is switched off/);
    await expect
      .poll(async () => (await service.listConnections({})).find((c) => c.id === added.id)?.problem)
      .toMatch(/HTTP API is switched off/);
    // It answered: online, with no figures, rather than "unreachable".
    expect((await service.listConnections({})).find((c) => c.id === added.id)?.state).toBe(
      'online',
    );
  });

  it('reports an unreachable broker at the socket layer', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const added = await add('Nothing', `http://127.0.0.1:${port}`, ADMIN);
    const report = await service.testConnection({ connectionId: added.id });
    expect(statuses(report)).toEqual({ socket: 'failed', credential: 'skipped', http: 'failed' });
    expect(messageOf(report, 'socket')).toMatch(/Cannot open a socket.io connection/);
  });

  it('reaches a broker behind a base path: socket.io, signed commands and the HTTP API', async () => {
    const added = await add('Behind proxy', proxy.url, ADMIN);
    const report = await service.testConnection({ connectionId: added.id });
    expect(statuses(report)).toEqual({ socket: 'ok', credential: 'ok', http: 'ok' });
    const pool = new ManagerPool(manager, 5_000);
    try {
      const reply = await pool.get(added.id).command({ command: 'get' });
      expect(reply.ok).toBe(true);
    } finally {
      pool.close();
    }
    const overview = await manager.overview(added.id);
    expect(overview.reachable).toBe(true);
    expect(overview.url).toBe(proxy.url);
  });

  it('tests a realm manager key with a signed AUTHORIZATION_NEXT', async () => {
    const added = await add('Fleet manager', broker.url, MANAGER_KEY, {
      credential: { kind: 'realm-manager', realm: 'fleet' },
    });
    const report = await service.testConnection({ connectionId: added.id });
    expect(statuses(report)).toEqual({ socket: 'ok', credential: 'ok', http: 'ok' });
    expect(messageOf(report, 'http')).toMatch(/need an admin token/);
  });

  it('refuses to send the admin token over clear-text http to a non-loopback host', async () => {
    // TEST-NET-1: never routed; the refusal comes before any packet is sent.
    const poller = new MetricsPoller({
      target: { baseUrl: 'http://192.0.2.1:17352', bearerToken: ADMIN },
      timeoutMs: 300,
    });
    const sample = await poller.pollOnce();
    expect(sample.reachable).toBe(false);
    expect(sample.error?.message).toMatch(
      /Refused to send the admin token in clear text \(http:\/\/\) to 192\.0\.2\.1/,
    );
    expect(sample.error?.message).not.toContain(ADMIN);
    const optedIn = new MetricsPoller({
      target: { baseUrl: 'http://192.0.2.1:17352', bearerToken: ADMIN, allowInsecureBearer: true },
      timeoutMs: 300,
    });
    expect((await optedIn.pollOnce()).error?.message).not.toMatch(/Refused to send/);
  });

  it('edits, removes, exports and imports profiles without secrets', async () => {
    const added = await add('To edit', broker.url, ADMIN);
    const edited = await service.editConnection({
      connectionId: added.id,
      name: 'Edited',
      url: proxy.url,
      tls: { rejectUnauthorized: true },
      credential: { kind: 'admin' },
      allowInsecureBearer: false,
    });
    expect(edited).toMatchObject({ name: 'Edited', url: proxy.url, hasSecret: true });
    const exported = await service.exportConnections({});
    expect(exported.profiles.map((p) => p.name)).toContain('Edited');
    const imported = await service.importConnections({ document: exported });
    expect(imported.find((c) => c.name === 'Edited (2)')).toMatchObject({ hasSecret: false });
    await service.removeConnection({ connectionId: added.id });
    expect((await service.listConnections({})).some((c) => c.id === added.id)).toBe(false);
    expect(store.secret(added.id)).toBeNull();
  });
});

it('a profile with nothing to reach reports that, layer by layer', async () => {
  const report = await testConnection({ id: 'x', name: 'x', target: () => null, url: () => '' });
  expect(report.layers.map((l) => l.status)).toEqual(['failed', 'skipped', 'skipped']);
});
