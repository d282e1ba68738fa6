/**
 * End to end: `npm run console`, its UI in headless Chromium, real tyo-mq clients.
 *   - Live tap: messages produced by a real client (in a realm that requires auth) appear;
 *     pause freezes the rows, filter narrows them; stopping revokes the console's temporary token.
 *   - Publish from the UI reaches a real consumer; invalid JSON is refused inline.
 *   - Local broker: the log tail is live, the settings editor shows errors inline (path +
 *     message) and leaves the file unchanged, a valid save is used by the broker (a new realm
 *     appears), Stop / Start work.
 *   - Demo mode fills the views (producers online, a DLQ, a pending request) and Stop removes
 *     its realm and its clients.
 * Screenshots of each view at 1280 and 390 px go to test-results/ (no horizontal overflow).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PendingRequest, RealmList } from '../../shared/console-api';
import {
  ClientEvent,
  Protocol,
  ServerEvent,
  consumeEvent,
  subscriptionKey,
} from '../../shared/protocol-events';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = path.join(REPO, 'test-results');
const REALM = 'fleet';
const MANAGER_KEY = 'fleet-manager-key-5a1c0e77';

const text = (page: Page, testId: string): Promise<string | null> =>
  page.getByTestId(testId).first().textContent();
const rows = (page: Page): Promise<number> => page.getByTestId('tap-row').count();

describe('console tap, publisher, local broker and demo end to end', () => {
  const fx = consoleFixture('switchboard-e2e-tap-');

  async function client(token?: string): Promise<Socket> {
    const socket = await fx.connect();
    if (token) {
      await new Promise<void>((resolve, reject) => {
        socket.once(ServerEvent.AUTH_OK, () => resolve());
        socket.once(ServerEvent.AUTH_FAIL, (reply) => reject(new Error(JSON.stringify(reply))));
        socket.emit(ClientEvent.AUTHENTICATION, { token, realm: REALM });
      });
    }
    return socket;
  }

  const realmToken = (): Promise<string> =>
    new SignJWT({ realm: REALM, role: 'both' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(MANAGER_KEY));

  /** Screenshots at 1280 and 390 px; asserts no horizontal overflow at 390. */
  async function shoot(name: string): Promise<void> {
    await fx.page.setViewportSize({ width: 1280, height: 900 });
    await fx.page.screenshot({ path: path.join(SHOTS, `${name}-1280.png`), fullPage: true });
    await fx.page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await fx.page.screenshot({ path: path.join(SHOTS, `${name}-390.png`), fullPage: true });
    await fx.page.setViewportSize({ width: 1280, height: 900 });
  }

  beforeAll(async () => {
    await fx.manager().command({ command: 'add_realm', realm: REALM, manager_key: MANAGER_KEY });
  }, 30_000);

  it('taps the messages a real client produces, with pause, filter and clear', async () => {
    await fx.page.getByTestId('nav-tap').click();
    await fx.page.getByTestId('tap-realm').fill(REALM);
    await fx.page.getByTestId('tap-pattern').fill('trucks/#');
    await fx.page.getByTestId('tap-start').click();
    await expect.poll(() => text(fx.page, 'tap-state'), { timeout: 15_000 }).toBe('tapping');
    expect(await text(fx.page, 'tap-info')).toContain('access: temporary token');

    const producer = await client(await realmToken());
    producer.emit(ClientEvent.PRODUCER, { name: 'truck-7' });
    let n = 0;
    const produce = (event: string): void => {
      n += 1;
      producer.emit(ClientEvent.PRODUCE, { event, from: 'truck-7', message: { n, speed: 80 + n } });
    };
    const pump = setInterval(() => produce(n % 2 ? 'trucks/7/speed' : 'trucks/7/fuel'), 50);
    try {
      await expect.poll(() => rows(fx.page), { timeout: 10_000 }).toBeGreaterThan(5);
      expect(await text(fx.page, 'tap-row-event')).toMatch(/^trucks\/7\/(speed|fuel)$/);
      expect(await text(fx.page, 'tap-row-payload')).toMatch(/^\{"n":\d+,"speed":\d+\}$/);
      // A message outside the pattern never shows.
      producer.emit(ClientEvent.PRODUCE, { event: 'boats/1', from: 'truck-7', message: 'no' });

      // Pause: the rows freeze while messages keep arriving (the counters move on).
      await fx.page.getByTestId('tap-pause').click();
      expect(await text(fx.page, 'tap-state')).toBe('paused');
      const received = async () =>
        Number(await fx.page.getByTestId('tap-stats').getAttribute('data-received'));
      // Rows that arrived before the click may still be drawn (the list is drawn at most 4×/s):
      // read the list once messages have kept arriving for a while, then again after more.
      const receivedAtPause = await received();
      await expect.poll(received).toBeGreaterThan(receivedAtPause + 5);
      const frozen = await fx.page.getByTestId('tap-list').innerText();
      const receivedAtFreeze = await received();
      await expect.poll(received).toBeGreaterThan(receivedAtFreeze + 5);
      expect(await fx.page.getByTestId('tap-list').innerText()).toBe(frozen);
      await shoot('console-tap');
      await fx.page.getByTestId('tap-pause').click();
      expect(await text(fx.page, 'tap-state')).toBe('tapping');

      // Filter on the event name.
      await fx.page.getByTestId('tap-filter').fill('fuel');
      await expect
        .poll(async () =>
          (await fx.page.getByTestId('tap-row-event').allTextContents()).every(
            (e) => e === 'trucks/7/fuel',
          ),
        )
        .toBe(true);
      expect(await rows(fx.page)).toBeGreaterThan(0);
      await fx.page.getByTestId('tap-filter').fill('');
    } finally {
      clearInterval(pump);
    }
    expect(await fx.page.getByTestId('tap-list').innerText()).not.toContain('boats/1');
    await fx.page.getByTestId('tap-clear').click();
    await expect.poll(() => rows(fx.page)).toBe(0);

    // Stop: the console's temporary token for the realm is revoked.
    await fx.page.getByTestId('tap-stop').click();
    await expect.poll(() => text(fx.page, 'tap-state')).toBe('stopped');
    await expect
      .poll(async () => {
        const reply = await fx.manager().command({ command: 'get' });
        const tokens = (reply.settings as { tokens?: { client_name?: string }[] }).tokens ?? [];
        return tokens.filter((t) => t.client_name?.startsWith('Switchboard console')).length;
      })
      .toBe(0);
  }, 90_000);

  it('publishes from the UI to a real consumer, refusing invalid JSON inline', async () => {
    const consumer = await client(await realmToken());
    const key = subscriptionKey(Protocol.ALL_PUBLISHERS, 'orders/new');
    const received = new Promise<unknown>((resolve) => consumer.once(consumeEvent(key), resolve));
    consumer.emit(ClientEvent.SUBSCRIBE, {
      event: 'orders/new',
      producer: Protocol.ALL_PUBLISHERS,
      consumer: 'order-desk',
      consumer_id: 'order-desk',
    });
    await fx.page.getByTestId('publish-realm').fill(REALM);
    await fx.page.getByTestId('publish-event').fill('orders/new');
    await fx.page.getByTestId('publish-json').fill('{"order": 42,');
    await expect.poll(() => fx.page.getByTestId('publish-json-error').count()).toBe(1);
    expect(await fx.page.getByTestId('publish-send').isDisabled()).toBe(true);
    await fx.page.getByTestId('publish-json').fill('{"order": 42, "items": ["tea"]}');
    await fx.page.getByTestId('publish-guaranteed').check();
    await fx.page.getByTestId('publish-ttl').fill('600');
    await fx.page.getByTestId('publish-send').click();
    expect(await received).toEqual({
      event: 'orders/new',
      message: { order: 42, items: ['tea'] },
      from: 'switchboard-console',
    });
    await expect
      .poll(() => text(fx.page, 'publish-result'), { timeout: 10_000 })
      .toContain('Published orders/new to fleet');
  }, 60_000);

  it('shows the live log and checks, saves and applies the settings file', async () => {
    await fx.page.getByTestId('nav-local').click();
    await expect.poll(() => text(fx.page, 'local-state')).toBe('running');
    // The console runs its broker at log level warn: a refused login writes a line, live.
    const intruder = await client();
    intruder.emit(ClientEvent.AUTHENTICATION, { token: 'not-a-token', realm: REALM });
    await expect
      .poll(() => fx.page.getByTestId('local-log').innerText(), { timeout: 10_000 })
      .toMatch(/token refused.*"refusal":"invalid"/);
    const settingsPath = (await text(fx.page, 'settings-path')) ?? '';
    await expect.poll(() => fx.page.getByTestId('settings-text').inputValue()).not.toBe('');
    const original = readFileSync(settingsPath, 'utf8');

    // Invalid: a wrong type and an unknown key, each shown inline with its path.
    const broken = JSON.parse(original) as Record<string, unknown>;
    broken.ack_timeout = '30 seconds';
    broken.storage_options = { synchronus: 'FULL' };
    await fx.page.getByTestId('settings-text').fill(JSON.stringify(broken, null, 2));
    await expect
      .poll(() => fx.page.getByTestId('settings-issue').count())
      .toBeGreaterThanOrEqual(2);
    const issues = (await fx.page.getByTestId('settings-issue').allTextContents()).join('\n');
    expect(issues).toContain('ack_timeout');
    expect(issues).toMatch(/storage_options.*synchronus/);
    expect(await fx.page.getByTestId('settings-save').isDisabled()).toBe(true);
    // Syntax errors carry a line and column.
    await fx.page.getByTestId('settings-text').fill('{\n  "ack_timeout": "30s",\n  oops\n}');
    await expect.poll(() => text(fx.page, 'settings-issue')).toMatch(/line 3, column 3/);
    await shoot('console-local-broker-invalid');
    expect(readFileSync(settingsPath, 'utf8')).toBe(original);

    // Valid: a new open realm, which the broker imports on reload.
    const next = JSON.parse(original) as { auth?: { realms?: Record<string, unknown> } };
    next.auth ??= {};
    next.auth.realms = { ...next.auth.realms, 'from-editor': { required: false } };
    await fx.page.getByTestId('settings-text').fill(JSON.stringify(next, null, 2));
    await expect.poll(() => fx.page.getByTestId('settings-valid').count()).toBe(1);
    await fx.page.getByTestId('settings-save').click();
    await expect
      .poll(() => text(fx.page, 'settings-saved'), { timeout: 15_000 })
      .toContain('reloaded the file');
    const realms = await callApi<RealmList>(fx.app, 'listRealms', { connectionId: 'local' });
    expect(realms.realms.map((r) => r.name)).toContain('from-editor');

    // The HTTP publish switches rewrite the same text (issue 28): on, 3 streams per IP, saved.
    await fx.page.getByTestId('http-publish-enabled').check();
    await fx.page.getByTestId('http-publish-per-ip').fill('3');
    await expect
      .poll(() => fx.page.getByTestId('settings-text').inputValue())
      .toContain('"sse_max_per_ip": 3');
    await expect.poll(() => fx.page.getByTestId('settings-valid').count()).toBe(1);
    await fx.page.getByTestId('settings-save').click();
    await expect
      .poll(() => text(fx.page, 'settings-saved'), { timeout: 15_000 })
      .toContain('reloaded the file');
    const saved = JSON.parse(readFileSync(settingsPath, 'utf8')) as Record<string, unknown>;
    expect(saved.http_publish).toMatchObject({ enabled: true, sse_max_per_ip: 3 });
    expect((saved.auth as { realms: Record<string, unknown> }).realms).toHaveProperty(
      'from-editor',
    );
    await shoot('console-local-broker');

    // Stop and Start.
    await fx.page.getByTestId('local-stop').click();
    // Stop asks first: it disconnects every client and stops the demo.
    expect(await text(fx.page, 'local-confirm')).toContain('disconnects every client');
    await fx.page.getByTestId('local-confirm-yes').click();
    await expect.poll(() => text(fx.page, 'local-state'), { timeout: 15_000 }).toBe('stopped');
    await fx.page.getByTestId('local-start').click();
    await expect.poll(() => text(fx.page, 'local-state'), { timeout: 30_000 }).toBe('running');
    fx.manager().reconnectNow();
    const after = await callApi<RealmList>(fx.app, 'listRealms', { connectionId: 'local' });
    expect(after.realms.map((r) => r.name)).toContain('from-editor');
  }, 120_000);

  it('starts demo mode with live data everywhere and removes it on stop', async () => {
    await fx.page.getByTestId('nav-demo').click();
    await fx.page.getByTestId('demo-toggle').click();
    await expect.poll(() => text(fx.page, 'demo-state'), { timeout: 20_000 }).toBe('running');
    await expect
      .poll(
        async () => Number(await fx.page.getByTestId('demo-produced').getAttribute('data-value')),
        {
          timeout: 10_000,
        },
      )
      .toBeGreaterThan(5);
    expect(Number(await fx.page.getByTestId('demo-clients').getAttribute('data-value'))).toBe(7);
    // The stuck consumer's messages are dead-lettered; the kiosk's request waits.
    await expect
      .poll(
        async () => {
          const reply = await fx
            .manager()
            .command({ command: 'dlq_list', realm: 'switchboard-demo' });
          return (reply.entries as unknown[]).length;
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
    const pending = await callApi<PendingRequest>(fx.app, 'nextRequest', {
      connectionId: 'local',
      realm: 'switchboard-demo',
    });
    expect(pending.request?.clientId).toBe('demo-kiosk-07');
    await shoot('console-demo');
    await fx.page.getByTestId('nav-overview').click();
    await expect
      .poll(async () =>
        Number(await fx.page.getByTestId('overview-producers').getAttribute('data-value')),
      )
      .toBeGreaterThanOrEqual(3);
    await shoot('console-overview-demo');
    await fx.page.getByTestId('nav-requests').click();
    await expect
      .poll(() => text(fx.page, 'request-realm'), { timeout: 10_000 })
      .toBe('switchboard-demo');

    await fx.page.getByTestId('nav-demo').click();
    // The view reads the demo's state when it mounts: the toggle means Stop only after that.
    await expect.poll(() => text(fx.page, 'demo-state'), { timeout: 10_000 }).toBe('running');
    await fx.page.getByTestId('demo-toggle').click();
    await expect.poll(() => text(fx.page, 'demo-state'), { timeout: 20_000 }).toBe('stopped');
    const realms = await callApi<RealmList>(fx.app, 'listRealms', { connectionId: 'local' });
    expect(realms.realms.map((r) => r.name)).not.toContain('switchboard-demo');
    const stats = await fx.manager().command({ command: 'stats' });
    const demoRealm = (stats.stats as { realms: Record<string, { consumers: { online: number } }> })
      .realms['switchboard-demo'];
    expect(demoRealm?.consumers.online ?? 0).toBe(0);
    expect(Number(await fx.page.getByTestId('demo-clients').getAttribute('data-value'))).toBe(0);
    expect(fx.pageErrors).toEqual([]);
  }, 120_000);
});
