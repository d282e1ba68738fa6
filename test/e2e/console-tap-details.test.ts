/**
 * End to end (issue 22, items 12 and 21): the live tap says why its list is empty (paused,
 * filter matching nothing, waiting), names its target instead of the internal subscription
 * key, exports the captured rows as JSON and CSV, shows a 5 MB message cut with its size; the
 * publish form's realm follows the tap's, and a publish that was not guaranteed but still
 * stored durable copies says why. Screenshots at 1280 and 390 px go to /tmp/shots-viewsb/ when
 * `SHOTS_DIR` is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClientEvent, Protocol, ServerEvent } from '../../shared/protocol-events';
import { downloadText } from '../support/chromium';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;
const REALM = 'lab';

const text = async (page: Page, testId: string): Promise<string> =>
  (await page.getByTestId(testId).first().textContent()) ?? '';
const received = async (page: Page): Promise<number> =>
  Number(await page.getByTestId('tap-stats').getAttribute('data-received'));

describe('live tap details end to end', () => {
  const fx = consoleFixture('switchboard-e2e-tap-details-', {
    page: { context: { acceptDownloads: true } },
  });

  async function realmClient(): Promise<Socket> {
    const socket = await fx.connect();
    await new Promise<void>((resolve, reject) => {
      socket.once(ServerEvent.AUTH_OK, () => resolve());
      socket.once(ServerEvent.AUTH_FAIL, (reply) => reject(new Error(JSON.stringify(reply))));
      socket.emit(ClientEvent.AUTHENTICATION, { realm: REALM, role: 'both' });
    });
    return socket;
  }

  async function shoot(name: string): Promise<void> {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    for (const width of [1280, 390]) {
      await fx.page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await fx.page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    await fx.page.setViewportSize({ width: 1280, height: 900 });
  }

  beforeAll(async () => {
    await fx.manager().command({ command: 'add_realm', realm: REALM, required: false });
  }, 30_000);

  it('says why the list is empty, names its target and lets the publish realm follow', async () => {
    await fx.page.getByTestId('nav-tap').click();
    await fx.page.getByTestId('tap-realm').fill(REALM);
    // The publisher's realm follows the tap's.
    await expect.poll(() => fx.page.getByTestId('publish-realm').inputValue()).toBe(REALM);
    await fx.page.getByTestId('tap-pattern').fill('lab/#');
    await fx.page.getByTestId('tap-start').click();
    await expect.poll(() => text(fx.page, 'tap-state'), { timeout: 15_000 }).toBe('tapping');
    const info = await text(fx.page, 'tap-info');
    expect(info).toContain('topic lab/#');
    expect(info).toContain('access: open realm');
    // No internal subscription key (`tyo-mq-all-lab/#`).
    expect(info).not.toContain('tyo-mq-all');
    expect(await text(fx.page, 'tap-empty')).toMatch(/^Waiting for messages/);

    // Paused with nothing kept: says it is paused, not that it waits.
    await fx.page.getByTestId('tap-pause').click();
    await expect.poll(() => text(fx.page, 'tap-empty')).toMatch(/^Paused/);
    await fx.page.getByTestId('tap-pause').click();

    // Two messages published from the page's own form reach the tap.
    await fx.page.getByTestId('publish-event').fill('lab/one');
    await fx.page.getByTestId('publish-send').click();
    await expect
      .poll(() => text(fx.page, 'publish-result'), { timeout: 10_000 })
      .toContain('lab/one');
    expect(await text(fx.page, 'publish-result')).toContain('no durable copy stored');
    await expect.poll(() => fx.page.getByTestId('tap-row').count(), { timeout: 10_000 }).toBe(1);

    // A filter that matches nothing, then paused as well: the list says which is the case.
    await fx.page.getByTestId('tap-filter').fill('nothing-like-this');
    await expect
      .poll(() => text(fx.page, 'tap-empty'))
      .toBe(
        'No row matches the filter "nothing-like-this": the one kept message does not contain it' +
          ' in its event, producer or payload.',
      );
    await fx.page.getByTestId('tap-pause').click();
    await expect.poll(() => text(fx.page, 'tap-empty')).toContain('The tap is paused.');
    await shoot('tap-empty-filter');
    await fx.page.getByTestId('tap-pause').click();
    await fx.page.getByTestId('tap-filter').fill('');
    await expect.poll(() => fx.page.getByTestId('tap-row').count()).toBe(1);
  }, 90_000);

  it('explains durable copies of a publish that was not guaranteed', async () => {
    // A durable subscriber that then goes offline: its copy is stored for it.
    const consumer = await realmClient();
    consumer.emit(ClientEvent.SUBSCRIBE, {
      event: 'lab/orders',
      producer: Protocol.ALL_PUBLISHERS,
      consumer: 'order-desk',
      consumer_id: 'order-desk',
      durable: true,
    });
    await expect
      .poll(async () => {
        const clients = await callApi<{
          realms: { name: string; consumers: { name: string; subscriptions: unknown[] }[] }[];
        }>(fx.app, 'listClients', { connectionId: 'local' });
        const realm = clients.realms.find((r) => r.name === REALM);
        return realm?.consumers.find((c) => c.name === 'order-desk')?.subscriptions.length ?? 0;
      })
      .toBe(1);
    consumer.close();

    await fx.page.getByTestId('publish-event').fill('lab/orders');
    expect(await fx.page.getByTestId('publish-guaranteed').isChecked()).toBe(false);
    await fx.page.getByTestId('publish-send').click();
    await expect
      .poll(() => text(fx.page, 'publish-result'), { timeout: 10_000 })
      .toContain('1 durable copy stored although not guaranteed');
    expect(await text(fx.page, 'publish-result')).toContain('this event has a durable subscriber');
    await expect.poll(() => fx.page.getByTestId('tap-row').count(), { timeout: 10_000 }).toBe(2);
  }, 60_000);

  it('shows a 5 MB message cut with its size and counts it', async () => {
    const before = await received(fx.page);
    const producer = await realmClient();
    const blob = 'y'.repeat(5 * 1024 * 1024);
    producer.emit(ClientEvent.PRODUCE, { event: 'lab/big', from: 'uploader', message: { blob } });
    await expect.poll(() => received(fx.page), { timeout: 20_000 }).toBe(before + 1);
    await expect.poll(() => fx.page.getByTestId('tap-row-size').count()).toBe(1);
    const size = fx.page.getByTestId('tap-row-size');
    expect(Number(await size.getAttribute('data-size'))).toBe(JSON.stringify({ blob }).length);
    expect(await size.textContent()).toBe('showing the first 2,048 of 5.2 M characters');
    expect(await text(fx.page, 'tap-row-event')).toBe('lab/big');
    await shoot('tap-large-message');
  }, 60_000);

  it('exports the captured rows as JSON and CSV', async () => {
    const [json] = await Promise.all([
      fx.page.waitForEvent('download'),
      fx.page.getByTestId('tap-export-json').click(),
    ]);
    expect(json.suggestedFilename()).toMatch(/^tap-lab-\d{8}-\d{6}\.json$/);
    const doc = JSON.parse(await downloadText(json)) as {
      realm: string;
      messages: { event: string; from: string; truncated: boolean; size: number }[];
    };
    expect(doc.realm).toBe(REALM);
    expect(doc.messages.map((m) => m.event)).toEqual(['lab/big', 'lab/orders', 'lab/one']);
    expect(doc.messages[0]).toMatchObject({ from: 'uploader', truncated: true });

    // The filter applies to the export.
    await fx.page.getByTestId('tap-filter').fill('orders');
    const [csv] = await Promise.all([
      fx.page.waitForEvent('download'),
      fx.page.getByTestId('tap-export-csv').click(),
    ]);
    expect(csv.suggestedFilename()).toMatch(/^tap-lab-\d{8}-\d{6}\.csv$/);
    const lines = (await downloadText(csv)).trimEnd().split('\r\n');
    expect(lines[0]).toBe('time,event,from,msg_id,size,truncated,payload');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z,lab\/orders,switchboard-console,/);
    await fx.page.getByTestId('tap-filter').fill('');
    await shoot('tap-details');
    await fx.page.getByTestId('tap-stop').click();
    await expect.poll(() => text(fx.page, 'tap-state')).toBe('stopped');
    expect(fx.pageErrors).toEqual([]);
  }, 60_000);
});
