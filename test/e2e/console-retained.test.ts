/**
 * End to end (issue 27): the Retained view against the console's real local broker, with a
 * real MQTT.js client that publishes retained messages. The view lists them (topic, size,
 * preview; no realm prefix), a row shows its whole payload, Delete (confirmed) clears one so a
 * new subscriber no longer gets it, "Delete all matching" — after typing the filter — clears
 * the rest, and Activity records `delete_retained`. Screenshots at 1280 and 390 px go to
 * `SHOTS_DIR` when it is set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActivityList } from '../../shared/console-api-activity';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;
const LONG = JSON.stringify({ firmware: '4.2.1', notes: 'x'.repeat(1_500), end: 'END-MARK' });

const topicsShown = (page: Page): Promise<Array<string | null>> =>
  page
    .getByTestId('retained-row')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-topic')));

describe('retained view end to end', () => {
  const fx = consoleFixture('switchboard-e2e-retained-', { mqtt: true });
  const clients: MqttClient[] = [];

  const mqtt = async (): Promise<MqttClient> => {
    const client = await connectAsync(`mqtt://127.0.0.1:${fx.mqttPort}`, {
      reconnectPeriod: 0,
      connectTimeout: 5_000,
    });
    clients.push(client);
    return client;
  };

  /** The retained messages a new subscriber to `filter` gets (a live marker ends the wait). */
  const retainedSeen = async (filter: string): Promise<string[]> => {
    const sub = await mqtt();
    const seen: string[] = [];
    let marked = false;
    sub.on('message', (topic, _payload, packet) => {
      if (topic === 'zz/marker') marked = true;
      else if (packet.retain) seen.push(topic);
    });
    await sub.subscribeAsync([filter, 'zz/marker'], { qos: 1 });
    await sub.publishAsync('zz/marker', 'end', { qos: 1 });
    await expect.poll(() => marked).toBe(true);
    await sub.endAsync();
    return seen.sort();
  };

  // Runs before the fixture's tear-down (vitest runs after-hooks as a stack).
  afterAll(async () => {
    for (const client of clients) await client.endAsync(true);
  }, 30_000);

  it('lists, shows, deletes one and deletes all matching', async () => {
    const device = await mqtt();
    await device.publishAsync('plant/line-1/config', LONG, { qos: 1, retain: true });
    await device.publishAsync('plant/line-2/config', '{"speed":12}', { qos: 1, retain: true });
    await device.publishAsync('plant/line-2/state', Buffer.from([0xde, 0xad, 0xbe, 0xef]), {
      qos: 0,
      retain: true,
    });
    await device.publishAsync('office/lights', 'on', { qos: 1, retain: true });

    await fx.page.getByTestId('nav-retained').click();
    await expect
      .poll(() => topicsShown(fx.page), { timeout: 15_000 })
      .toEqual([
        'office/lights',
        'plant/line-1/config',
        'plant/line-2/config',
        'plant/line-2/state',
      ]);
    const binary = fx.page.locator('[data-topic="plant/line-2/state"]');
    expect(await binary.textContent()).toContain('base64 3q2+7w==');

    // A filter narrows the table (applied on Enter).
    await fx.page.getByTestId('retained-filter').fill('plant/+/config');
    await fx.page.getByTestId('retained-filter').press('Enter');
    await expect
      .poll(() => topicsShown(fx.page))
      .toEqual(['plant/line-1/config', 'plant/line-2/config']);

    // The row's payload in full (the table shows a preview of 1 KiB at most).
    await fx.page.locator('[data-topic="plant/line-1/config"]').getByRole('button').click();
    await expect.poll(() => fx.page.getByTestId('retained-payload').textContent()).toBe(LONG);

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.screenshot({ path: path.join(SHOTS, 'retained-1280.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await fx.page.screenshot({ path: path.join(SHOTS, 'retained-390.png'), fullPage: true });
      await fx.page.setViewportSize({ width: 1280, height: 900 });
    }

    // Delete one, confirmed.
    await fx.page.getByTestId('retained-delete').click();
    await fx.page.getByTestId('retained-delete-confirm-yes').click();
    await expect
      .poll(() => fx.page.getByTestId('retained-action-message').textContent())
      .toContain('Deleted 1 retained message of plant/line-1/config');
    await expect.poll(() => topicsShown(fx.page)).toEqual(['plant/line-2/config']);
    expect(await retainedSeen('plant/#')).toEqual(['plant/line-2/config', 'plant/line-2/state']);

    // Delete all matching needs the filter typed.
    await fx.page.getByTestId('retained-filter').fill('plant/#');
    await fx.page.getByTestId('retained-apply').click();
    await expect
      .poll(() => topicsShown(fx.page))
      .toEqual(['plant/line-2/config', 'plant/line-2/state']);
    await fx.page.getByTestId('retained-bulk-confirm').fill('plant/+');
    expect(await fx.page.getByTestId('retained-bulk-delete').isDisabled()).toBe(true);
    await fx.page.getByTestId('retained-bulk-confirm').fill('plant/#');
    await fx.page.getByTestId('retained-bulk-delete').click();
    await expect
      .poll(() => fx.page.getByTestId('retained-action-message').textContent())
      .toContain('Deleted 2 retained messages matching plant/#');
    await fx.page.getByTestId('retained-empty').waitFor();
    expect(await retainedSeen('#')).toEqual(['office/lights']);

    const activity = await callApi<ActivityList>(fx.app, 'listActivity', {
      actions: ['delete_retained'],
    });
    expect(activity.entries).toHaveLength(2);
    expect(activity.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          target: 'default',
          params: expect.objectContaining({ filter: 'plant/#' }),
        }),
        expect.objectContaining({
          params: expect.objectContaining({ topic: 'plant/line-1/config' }),
        }),
      ]),
    );
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);

  it('publishes over MQTT from the Live tap with QoS, retain and MQTT 5 properties, and keeps templates', async () => {
    const watcher = await connectAsync(`mqtt://127.0.0.1:${fx.mqttPort}`, {
      protocolVersion: 5,
      reconnectPeriod: 0,
    });
    clients.push(watcher);
    const got: { topic: string; payload: string; retain: boolean; user: unknown }[] = [];
    watcher.on('message', (topic, payload, packet) =>
      got.push({
        topic,
        payload: payload.toString(),
        retain: packet.retain,
        user: packet.properties?.userProperties,
      }),
    );
    await watcher.subscribeAsync('hall/#', { qos: 1 });

    await fx.page.getByTestId('nav-tap').click();
    await fx.page.getByTestId('publish-protocol-mqtt').click();
    await fx.page.getByTestId('mqtt-topic').fill('hall/door');
    await fx.page.getByTestId('mqtt-payload').fill('{"open": true}');
    await fx.page.getByTestId('mqtt-retain').check();
    await fx.page.getByTestId('mqtt-user-properties').fill('site=north');
    // A wildcard is refused before anything is sent.
    await fx.page.getByTestId('mqtt-topic').fill('hall/#');
    await expect
      .poll(() => fx.page.getByTestId('mqtt-problem').textContent())
      .toContain('wildcards');
    expect(await fx.page.getByTestId('mqtt-send').isDisabled()).toBe(true);
    await fx.page.getByTestId('mqtt-topic').fill('hall/door');
    await fx.page.getByTestId('mqtt-send').click();
    await expect
      .poll(() => fx.page.getByTestId('mqtt-result').textContent())
      .toMatch(/Published 14 B to hall\/door in default, retained .* PUBACK received/);
    await expect.poll(() => got.length).toBe(1);
    expect(got[0]).toEqual({
      topic: 'hall/door',
      payload: '{"open": true}',
      retain: false,
      user: { site: 'north' },
    });
    // Retained on the broker: a new subscriber gets it.
    expect(await retainedSeen('hall/#')).toEqual(['hall/door']);

    // Saved as a template, it survives a reload and fills the form again.
    await fx.page.getByTestId('publish-template-name').fill('door sensor');
    await fx.page.getByTestId('publish-template-save').click();
    await fx.page.reload();
    await fx.page.getByTestId('nav-tap').click();
    await fx.page.getByTestId('publish-template').selectOption('door sensor');
    await expect.poll(() => fx.page.getByTestId('mqtt-topic').inputValue()).toBe('hall/door');
    expect(await fx.page.getByTestId('mqtt-retain').isChecked()).toBe(true);
    expect(await fx.page.getByTestId('mqtt-user-properties').inputValue()).toBe('site=north');

    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await fx.page.getByTestId('mqtt-send').scrollIntoViewIfNeeded();
      await fx.page.screenshot({
        path: path.join(SHOTS, 'mqtt-publisher-1280.png'),
        fullPage: true,
      });
      await fx.page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => fx.page.evaluate(() => document.documentElement.scrollWidth))
        .toBeLessThanOrEqual(390);
      await fx.page.screenshot({
        path: path.join(SHOTS, 'mqtt-publisher-390.png'),
        fullPage: true,
      });
      await fx.page.setViewportSize({ width: 1280, height: 900 });
    }
    // The console serves React's production build even when started under vitest
    // (NODE_ENV=test): the development build's checks made busy views several times slower.
    const bundle = (await fx.page.evaluate(async () => {
      const src = document.querySelector<HTMLScriptElement>('script[type="module"]')?.src;
      return src ? (await fetch(src)).text() : '';
    })) as string;
    expect(bundle.length).toBeGreaterThan(10_000);
    expect(bundle).not.toContain('jsxDEV');
    const activity = await callApi<ActivityList>(fx.app, 'listActivity', {
      actions: ['console_mqtt_publish'],
    });
    expect(activity.entries[0]).toMatchObject({
      params: { realm: 'default', topic: 'hall/door', qos: 1, retain: true },
    });
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);
});
