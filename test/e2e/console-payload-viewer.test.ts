/**
 * End to end (issue 27): the live tap opens a message's payload in the payload viewer (JSON
 * tree, Text, Hex, Base64, size, Copy), shows a binary (MQTT) message as bytes, pages a big array in
 * the tree, and diffs two picked messages. Real console (web host), real broker, real
 * socket.io producer, Chromium. Screenshots at 1280 and 390 px go to `SHOTS_DIR` when set.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { connectAsync } from 'mqtt';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClientEvent, ServerEvent } from '../../shared/protocol-events';
import { consoleFixture } from '../support/console-fixture';

const SHOTS = process.env.SHOTS_DIR;
const REALM = 'lab';
const FIRST = { order: 42, items: ['a', 'b'], note: 'café' };
const SECOND = { order: 43, items: ['a'], note: 'café', rush: true };
const BYTES = [0x00, 0xff, 0x48, 0x69, 0x0a];

describe('payload viewer end to end', () => {
  const fx = consoleFixture('switchboard-e2e-payload-', {
    mqtt: true,
    page: { context: { permissions: ['clipboard-read', 'clipboard-write'] } },
  });
  let producer: Socket;

  const row = (event: string) => fx.page.getByTestId('tap-row').filter({ hasText: event });
  const text = async (testId: string): Promise<string> =>
    (await fx.page.getByTestId(testId).first().textContent()) ?? '';

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
    producer = await fx.connect();
    await new Promise<void>((resolve, reject) => {
      producer.once(ServerEvent.AUTH_OK, () => resolve());
      producer.once(ServerEvent.AUTH_FAIL, (reply) => reject(new Error(JSON.stringify(reply))));
      producer.emit(ClientEvent.AUTHENTICATION, { realm: REALM, role: 'both' });
    });
  }, 30_000);

  it('taps a JSON, a binary and an array message', async () => {
    await fx.page.getByTestId('nav-tap').click();
    await fx.page.getByTestId('tap-realm').fill(REALM);
    await fx.page.getByTestId('tap-pattern').fill('lab/#');
    await fx.page.getByTestId('tap-start').click();
    await expect.poll(() => text('tap-state'), { timeout: 15_000 }).toBe('tapping');
    const publish = (event: string, message: unknown): void => {
      producer.emit(ClientEvent.PRODUCE, { event, from: 'orders', message });
    };
    publish('lab/first', FIRST);
    publish('lab/second', SECOND);
    // Binary reaches a tyo-mq realm only from MQTT: bytes that are not UTF-8 become a base64
    // string with the envelope `enc: "base64"` (docs/mqtt.md), which the tap row carries.
    const device = await connectAsync(`mqtt://127.0.0.1:${fx.mqttPort}`, {
      reconnectPeriod: 0,
      username: REALM,
    });
    try {
      await device.publishAsync('lab/binary', Buffer.from(BYTES));
    } finally {
      await device.endAsync();
    }
    publish(
      'lab/list',
      Array.from({ length: 150 }, (_, i) => i),
    );
    await expect.poll(() => fx.page.getByTestId('tap-row').count(), { timeout: 15_000 }).toBe(4);
  }, 60_000);

  it('shows a JSON payload as a tree, text, hex and base64, with its size and Copy', async () => {
    const json = JSON.stringify(FIRST);
    await row('lab/first').getByTestId('tap-row-view').click();
    const viewer = fx.page.getByTestId('tap-payload');
    await viewer.waitFor();
    expect(await viewer.getAttribute('data-kind')).toBe('json');
    // "é" is two bytes in UTF-8: the size counts bytes, not characters.
    expect(Number(await fx.page.getByTestId('tap-payload-size').getAttribute('data-bytes'))).toBe(
      Buffer.byteLength(json),
    );
    expect(await text('tap-payload-size')).toBe(`${Buffer.byteLength(json)} B`);
    expect(await text('tap-payload-tree')).toContain('"order": 42');
    await shoot('payload-tap-tree');

    await fx.page.getByTestId('tap-payload-tab-text').click();
    expect(await text('tap-payload-text')).toBe(JSON.stringify(FIRST, null, 2));

    await fx.page.getByTestId('tap-payload-tab-hex').click();
    const hex = await text('tap-payload-hex');
    // `{"order` = 7b 22 6f 72 64 65 72; the ASCII column repeats it.
    expect(hex.startsWith('00000000 7b 22 6f 72 64 65 72')).toBe(true);
    expect(hex).toContain('{"order":42,"ite');
    await shoot('payload-tap-hex');

    await fx.page.getByTestId('tap-payload-tab-base64').click();
    const base64 = Buffer.from(json).toString('base64');
    expect(await text('tap-payload-base64')).toBe(base64);
    await fx.page.getByTestId('tap-payload-copy').click();
    await expect.poll(() => text('tap-payload-copy')).toBe('Copied');
    expect(await fx.page.evaluate(() => navigator.clipboard.readText())).toBe(base64);
  }, 60_000);

  it('shows a binary payload as bytes, without a JSON tree', async () => {
    await row('lab/binary').getByTestId('tap-row-view').click();
    const viewer = fx.page.getByTestId('tap-payload');
    // The envelope's `enc: "base64"` reaches the tap row: the viewer shows bytes at once, with
    // no decode switch to offer.
    await expect.poll(() => viewer.getAttribute('data-kind')).toBe('binary');
    expect(await fx.page.getByTestId('tap-payload-decode').count()).toBe(0);
    expect(await fx.page.getByTestId('tap-payload-tab-tree').count()).toBe(0);
    expect(await fx.page.getByTestId('tap-payload-size').getAttribute('data-bytes')).toBe(
      String(BYTES.length),
    );
    // Hex is the first tab for bytes.
    const hex = await text('tap-payload-hex');
    expect(hex).toContain('00000000 00 ff 48 69 0a');
    expect(hex.trimEnd().endsWith('..Hi.')).toBe(true);
    await fx.page.getByTestId('tap-payload-tab-base64').click();
    expect(await text('tap-payload-base64')).toBe(Buffer.from(BYTES).toString('base64'));
    await shoot('payload-tap-binary');
  }, 30_000);

  it('pages a big array in the tree', async () => {
    await row('lab/list').getByTestId('tap-row-view').click();
    const more = fx.page.getByTestId('payload-tree-more');
    await expect.poll(() => more.textContent()).toBe('show 50 more of 50 left');
    expect(await text('tap-payload-tree')).not.toContain('149');
    await more.click();
    await expect.poll(() => text('tap-payload-tree')).toContain('149');
    expect(await more.count()).toBe(0);
  }, 30_000);

  it('diffs two picked messages by JSON path', async () => {
    await row('lab/first').getByTestId('tap-row-pick').check();
    expect(await text('tap-pick-hint')).toContain('lab/first');
    await row('lab/second').getByTestId('tap-row-pick').check();
    const diff = fx.page.getByTestId('tap-diff');
    await diff.waitFor();
    expect(await diff.getAttribute('data-kind')).toBe('json');
    const changes = fx.page.getByTestId('tap-diff-change');
    const listed = await changes.evaluateAll((items) =>
      items.map((li) => `${li.getAttribute('data-kind')} ${li.getAttribute('data-path')}`),
    );
    expect(listed).toEqual(['changed $.order', 'removed $.items[1]', 'added $.rush']);
    expect(await changes.first().textContent()).toContain('42 → 43');
    await shoot('payload-tap-diff');

    // A third pick replaces the older of the two.
    await row('lab/binary').getByTestId('tap-row-pick').check();
    expect(await row('lab/first').getByTestId('tap-row-pick').isChecked()).toBe(false);
    await fx.page.getByTestId('tap-diff-close').click();
    expect(await diff.count()).toBe(0);
    expect(fx.pageErrors).toEqual([]);
  }, 30_000);
});
