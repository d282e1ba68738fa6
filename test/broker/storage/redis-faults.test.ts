/**
 * Redis store faults (`spec/protocol-core.md` §16.1 probe and fallback, §16.3 "connection errors
 * are logged and never fatal"): an outage rejects operations with a clear error and the store
 * reconnects by itself; an unreachable Redis at start-up falls back when told to, else fails
 * naming the URL; credentials never reach a log line or an error.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '../../../broker/config/load-settings';
import { createStore, storeOpened } from '../../../broker/storage/create-store';
import type { MessageStore } from '../../../broker/storage/message-store';
import { RedisStartupStore } from '../../../broker/storage/redis-startup';
import { RedisStore } from '../../../broker/storage/redis-store';
import { freePort, startRedisServer, type RedisServer } from '../../helpers/redis-server';
import { waitUntil } from '../../helpers/wait';

const env = (message: unknown) => ({ event: 'job', message, from: 'fleet' });
const input = (message: unknown) => ({ consumer: 'c', payload: env(message), producer: 'p' });

/** A logger whose JSON lines land in `lines`. */
function capture(): { logger: pino.Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, text: () => lines.join('') };
}

/** A loopback port nothing listens on. */
const closedPort = freePort;

const dir = mkdtempSync(join(tmpdir(), 'swb-redis-faults-'));
const open: MessageStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Redis outage', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('reconnects by itself after its connection is dropped', async () => {
    const log = capture();
    const store = new RedisStore({ url: server.url, prefix: 'drop', logger: log.logger });
    open.push(store);
    const id = await store.enqueue('default', 'k', input(1));
    const admin = new Redis(server.url);
    await admin.client('KILL', 'TYPE', 'normal');
    admin.disconnect();
    await waitUntil(() => log.text().includes('Redis store reconnected'), 'reconnected');
    expect((await store.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual([id]);
  });

  it('rejects operations with a clear error while Redis is down, logs once, never crashes', async () => {
    const own = await startRedisServer();
    const log = capture();
    const store = new RedisStore({ url: own.url, prefix: 'down', logger: log.logger });
    open.push(store);
    await store.enqueue('default', 'k', input('before'));
    await own.stop();
    await waitUntil(() => log.text().includes('Redis store connection error'), 'error logged');
    const started = Date.now();
    const unavailable = new RegExp(
      `Redis store unavailable at redis://127\\.0\\.0\\.1:${own.port}`,
    );
    await expect(store.enqueue('default', 'k', input('during'))).rejects.toThrow(unavailable);
    await expect(store.dequeue('default', 'k', 'c')).rejects.toMatchObject({
      code: 'SWB_ERR_STORAGE',
    });
    await expect(store.listDlq(null)).rejects.toThrow(unavailable);
    await expect(store.purgeExpired(10)).rejects.toThrow(unavailable);
    // Fails fast: no waiting for a reconnect.
    expect(Date.now() - started).toBeLessThan(1_000);
    const errors = log.lines.filter((l) => JSON.parse(l).level === 50);
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toMatchObject({ url: `redis://127.0.0.1:${own.port}` });
  });

  it('counts the writes that fail while Redis is down, not the reads; offers no backup', async () => {
    const own = await startRedisServer();
    const log = capture();
    const store = new RedisStartupStore({ url: own.url, prefix: 'count', logger: log.logger });
    open.push(store);
    await store.opened;
    const failed: string[] = [];
    store.observeWriteFailures((op, reason) => failed.push(`${op}/${reason}`));
    const id = await store.enqueue('default', 'k', input('before'));
    await own.stop();
    await waitUntil(() => log.text().includes('Redis store connection error'), 'error logged');
    await expect(store.enqueue('default', 'k', input('during'))).rejects.toThrow(/unavailable/);
    await expect(store.ack(id)).rejects.toThrow(/unavailable/);
    await expect(store.dequeue('default', 'k', 'c')).rejects.toThrow(/unavailable/);
    expect(failed).toEqual(['enqueue/error', 'ack/error']);
    await expect(store.backup(join(dir, 'redis-copy.sqlite'))).rejects.toMatchObject({
      code: 'SWB_ERR_NOT_SUPPORTED',
      message: 'Online backup is not supported for the redis storage backend (SQLite only)',
    });
  });
});

describe('Redis start-up probe and fallback', () => {
  const settings = (storageOptions: Record<string, unknown>) =>
    parseSettings({ storage: 'redis', storage_options: storageOptions });

  it('falls back to SQLite with a warning when Redis does not answer', async () => {
    const port = await closedPort();
    const log = capture();
    const store = createStore(
      settings({
        url: `redis://user:s3cret-pw@127.0.0.1:${port}`,
        fallback: 'sqlite',
        fallbackPath: 'fallback.sqlite',
        probe_timeout: 2_000,
      }),
      dir,
      log.logger,
    );
    open.push(store);
    expect(store).toBeInstanceOf(RedisStartupStore);
    // Calls made during the probe wait for it and land in the fallback.
    const early = store.enqueue('default', 'k', input('early'));
    const opened = await (store as RedisStartupStore).opened;
    expect(opened).toMatchObject({ backend: 'sqlite', fellBack: true });
    expect(opened.error?.message).toMatch(
      `Redis store unreachable at redis://user:***@127.0.0.1:${port}`,
    );
    expect(store.backend).toBe('sqlite');
    const id = await early;
    expect((await store.dequeue('default', 'k', 'c')).map((e) => e.id)).toEqual([id]);
    expect(existsSync(join(dir, 'fallback.sqlite'))).toBe(true);
    // The fallback's own backup (docs/backup.md).
    await expect(store.backup!(join(dir, 'fallback-copy.sqlite'))).resolves.toMatchObject({
      source: join(dir, 'fallback.sqlite'),
    });
    // Note 7-A: logged at error level (the reference's "critical"): an operator must know.
    const warning = log.lines
      .map((l) => JSON.parse(l))
      .find((l) => l.level === 50 && 'fallback' in l);
    expect(warning).toMatchObject({
      fallback: 'sqlite',
      url: `redis://user:***@127.0.0.1:${port}`,
    });
    expect(log.text()).not.toContain('s3cret-pw');
    expect(opened.error?.message).not.toContain('s3cret-pw');
  });

  it('falls back to memory when told to', async () => {
    const port = await closedPort();
    const store = createStore(
      settings({ url: `redis://127.0.0.1:${port}`, fallback: 'memory', probe_timeout: 2_000 }),
      dir,
      pino({ level: 'silent' }),
    );
    open.push(store);
    await storeOpened(store);
    expect(store.backend).toBe('memory');
  });

  it('without a fallback, refuses to start naming the URL without its password', async () => {
    const port = await closedPort();
    const log = capture();
    const store = createStore(
      settings({ url: `redis://:s3cret-pw@127.0.0.1:${port}/2`, probe_timeout: 1_000 }),
      dir,
      log.logger,
    );
    open.push(store);
    const failure = storeOpened(store);
    await expect(failure).rejects.toThrow(
      `Redis store unreachable at redis://:***@127.0.0.1:${port}/2`,
    );
    await expect(failure).rejects.toThrow(/storage_options\.fallback/);
    await expect(store.enqueue('default', 'k', input(1))).rejects.toMatchObject({
      code: 'SWB_ERR_STORAGE',
    });
    expect(log.text()).not.toContain('s3cret-pw');
  });

  it('probes a reachable Redis and uses it', async () => {
    const server = await startRedisServer();
    try {
      const store = createStore(
        settings({ url: server.url, prefix: 'probe', fallback: 'memory' }),
        dir,
        pino({ level: 'silent' }),
      );
      await expect((store as RedisStartupStore).opened).resolves.toMatchObject({
        backend: 'redis',
        fellBack: false,
      });
      await store.enqueue('default', 'k', input(1));
      expect(await store.countQueued('default')).toBe(1);
      await store.close();
    } finally {
      await server.stop();
    }
  });

  it('validates the Redis keys with clear paths', () => {
    expect(() => settings({ url: 'http://localhost:6379' })).toThrow(
      'storage_options.url: must be a redis:// or rediss:// URL',
    );
    expect(() => settings({ fallback: 'postgres' })).toThrow(/storage_options\.fallback/);
    expect(() => settings({ probe_timeout: -1 })).toThrow(/storage_options\.probe_timeout/);
    expect(settings({ fallback: true, connectTimeout: 100 }).storage_options).toMatchObject({
      fallback: 'sqlite',
      connect_timeout: 100,
    });
  });
});
