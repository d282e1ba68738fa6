/**
 * Issue 22, item 16, against a real broker with auth on: a saved profile with a wrong admin
 * token backs off its scrapes (2^n × base, capped) and says so in its summary; a wrong realm
 * manager key backs off the request watcher's signed `AUTHORIZATION_NEXT` the same way and shows
 * the connection refused; and a profile can be tested before it is saved (nothing stored, a
 * stored secret never sent to another URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../electron/services/connection-manager';
import { ConnectionProfileStore } from '../../electron/services/connection-profiles';
import { createConnectionsService } from '../../electron/services/connections-console-service';
import { ManagerPool } from '../../electron/services/manager-pool';
import type { BrokerSample } from '../../electron/services/metrics-poller';
import { RefusalBackoff } from '../../electron/services/refusal-backoff';
import { RequestWatcher, type CommandRefusal } from '../../electron/services/request-watcher';
import { FileSecretStore } from '../../electron/services/secret-store';
import type { ConnectionProfileFields } from '../../shared/console-api-connections';
import type { SwitchboardError } from '../../shared/error-catalogue';
import { startAuthBroker } from '../helpers/auth-clients';
import type { Harness } from '../helpers/broker-harness';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const ADMIN = 'remote-admin-token-backoff-0123456789';
const MANAGER_KEY = 'fleet-manager-key-backoff-77aa';
const BASE_MS = 100;
const MAX_MS = 400;

describe('refusal backoff', () => {
  it('doubles the wait per refusal up to the cap, and resets', () => {
    let now = 1_000;
    const backoff = new RefusalBackoff({ baseMs: 100, maxMs: 400, now: () => now });
    expect(backoff.ready()).toBe(true);
    expect([1, 2, 3, 4, 5].map(() => backoff.refused().delayMs)).toEqual([100, 200, 400, 400, 400]);
    expect(backoff.state()).toEqual({ refusals: 5, delayMs: 400, retryAt: 1_400 });
    expect(backoff.ready()).toBe(false);
    now = 1_400;
    expect(backoff.ready()).toBe(true);
    backoff.reset();
    expect(backoff.state()).toBeNull();
    expect(backoff.refused().delayMs).toBe(100);
  });
});

describe('connections whose credential the broker refuses', () => {
  let dir: TempDir;
  let broker: Harness;
  let manager: ConnectionManager;
  let store: ConnectionProfileStore;
  let service: ReturnType<typeof createConnectionsService>;
  let pool: ManagerPool;

  beforeAll(async () => {
    dir = await makeTempDir();
    broker = await startAuthBroker(
      {
        tokens: [{ token: ADMIN, realm: '*', role: 'admin' }],
        realms: { default: { required: false }, fleet: { manager_key: MANAGER_KEY } },
      },
      { http_api: { enabled: true } },
    );
    const secrets = new FileSecretStore(dir.path);
    manager = new ConnectionManager({
      intervalMs: 20,
      timeoutMs: 3_000,
      refusalBackoff: { baseMs: BASE_MS, maxMs: MAX_MS },
    });
    store = new ConnectionProfileStore(dir.path, secrets);
    service = createConnectionsService({
      connections: manager,
      profiles: store,
      secrets,
      testTimeoutMs: 4_000,
    });
    pool = new ManagerPool(manager, 3_000);
  }, 30_000);

  afterAll(async () => {
    pool.close();
    manager.close();
    await broker.close();
    await dir.remove();
  });

  const fields = (
    name: string,
    extra: Partial<ConnectionProfileFields> = {},
  ): ConnectionProfileFields => ({
    name,
    url: broker.url,
    tls: { rejectUnauthorized: true },
    credential: { kind: 'admin' },
    allowInsecureBearer: false,
    ...extra,
  });

  it('backs off the scrapes of a wrong admin token, and shows it', async () => {
    const added = await service.addConnection({ ...fields('Wrong token'), secret: 'not-it' });
    const samples: BrokerSample[] = [];
    const delays: number[] = [];
    const stop = manager.onSample((id, sample) => {
      if (id !== added.id) return;
      samples.push(sample);
      const summary = manager.summaries().find((s) => s.id === added.id);
      delays.push(summary?.backoff?.delayMs ?? 0);
    });
    await expect.poll(() => samples.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
    stop();
    // Every scrape was refused; the waits doubled up to the cap (not the 20 ms period).
    expect(samples.slice(0, 5).every((s) => !s.reachable)).toBe(true);
    expect(delays.slice(0, 5)).toEqual([100, 200, 400, 400, 400]);
    for (let i = 1; i < 5; i += 1) {
      const gap = samples[i]!.monotonicAt - samples[i - 1]!.monotonicAt;
      expect(gap).toBeGreaterThanOrEqual(delays[i - 1]! - 5);
    }
    const summary = manager.summaries().find((s) => s.id === added.id);
    expect(summary).toMatchObject({
      state: 'refused',
      backoff: { what: 'http', delayMs: MAX_MS },
    });
    expect(summary?.backoff?.retryAt).toBeGreaterThan(Date.now() - MAX_MS);

    // The right token: a new poller, no backoff, online.
    await service.editConnection({
      ...fields('Wrong token'),
      connectionId: added.id,
      secret: ADMIN,
    });
    await expect
      .poll(() => manager.summaries().find((s) => s.id === added.id)?.state, { timeout: 10_000 })
      .toBe('online');
    expect(manager.summaries().find((s) => s.id === added.id)?.backoff ?? null).toBeNull();
    await service.removeConnection({ connectionId: added.id });
  }, 30_000);

  it('backs off signed commands refused for a wrong realm manager key', async () => {
    const added = await service.addConnection({
      ...fields('Wrong key', { credential: { kind: 'realm-manager', realm: 'fleet' } }),
      secret: 'not-the-manager-key',
    });
    const refusals: (CommandRefusal | null)[] = [];
    const watcher = new RequestWatcher({
      pool,
      connectionIds: () => [added.id],
      realmOf: () => 'fleet',
      onChange: () => undefined,
      refusalBackoff: { baseMs: BASE_MS, maxMs: MAX_MS },
      onRefusal: (id, refusal) => {
        refusals.push(refusal);
        manager.reportCommandRefusal(id, refusal);
      },
    });
    // Rounds as fast as they can go: only the backoff spaces the refused ones.
    let rounds = 0;
    while (refusals.length < 3) {
      await watcher.round();
      rounds += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(rounds).toBeGreaterThan(3);
    expect(refusals.map((r) => r?.backoff.delayMs)).toEqual([100, 200, 400]);
    expect(refusals[0]?.problem).toMatch(/refused this connection's signed commands/);
    const summary = manager.summaries().find((s) => s.id === added.id);
    expect(summary).toMatchObject({ state: 'refused', backoff: { what: 'commands', refusals: 3 } });

    // The right key: once the watcher forgets the backoff (the edit does), it is accepted.
    await service.editConnection({
      ...fields('Wrong key', { credential: { kind: 'realm-manager', realm: 'fleet' } }),
      connectionId: added.id,
      secret: MANAGER_KEY,
    });
    watcher.forget(added.id);
    await watcher.round();
    expect(manager.summaries().find((s) => s.id === added.id)?.backoff ?? null).toBeNull();
    await service.removeConnection({ connectionId: added.id });
  }, 30_000);

  it('tests a profile before it is saved, storing nothing', async () => {
    const before = store.list().length;
    const ids = manager.ids().length;
    const good = await service.testConnectionDraft({ ...fields('Draft'), secret: ADMIN });
    expect(good).toMatchObject({ connectionId: 'draft', ok: true });
    const bad = await service.testConnectionDraft({ ...fields('Draft'), secret: 'wrong' });
    expect(bad.ok).toBe(false);
    expect(bad.layers.find((l) => l.layer === 'credential')?.status).toBe('failed');
    expect(JSON.stringify(bad)).not.toContain('wrong"');
    expect(store.list()).toHaveLength(before);
    expect(manager.ids()).toHaveLength(ids);

    // Editing: no secret typed uses the stored one, for the same URL only.
    const saved = await service.addConnection({ ...fields('Saved'), secret: ADMIN });
    const same = await service.testConnectionDraft({ ...fields('Saved'), connectionId: saved.id });
    expect(same).toMatchObject({ connectionId: saved.id, ok: true });
    const elsewhere = await service
      .testConnectionDraft({
        ...fields('Saved', { url: 'http://127.0.0.1:9/' }),
        connectionId: saved.id,
      })
      .catch((error: unknown) => error);
    expect((elsewhere as SwitchboardError).code).toBe('SWB_ERR_VALIDATION');
    await service.removeConnection({ connectionId: saved.id });
  }, 30_000);
});
