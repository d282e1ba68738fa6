/**
 * The Activity page in Chromium against `npm run console`: it lists the operator's actions by
 * default (an entry from before the `origin` field counts as the operator's), hides the
 * console's own background commands (demo mode's set-up and clean-up, an `already gone`
 * clean-up) until the toggle asks for them, marks them `console`, and never shows an
 * `already gone` clean-up as a failure. A replay of dead letters from the Dead letters view —
 * one from its detail, whose confirmation opens in the detail's button row, and two selected —
 * shows its trail (issue 27): each DLQ id → the id its re-queued copy waits under → consumer,
 * key and realm; a plain tyo-mq broker's replay, whose reply names none of them, shows its ids
 * only. Screenshots at 1280 and 390 px go to $SHOTS_DIR (default test-results/), as
 * activity-*.png and dead-letters-confirm-*.png (no horizontal overflow).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DeadLetterPage } from '../../shared/console-api-operations';
import type { QueuePeek } from '../../shared/console-api-queues';
import { ClientEvent, subscriptionKey } from '../../shared/protocol-events';
import { jsProducerPayload, producePayload } from '../helpers/stock-clients';
import { subscribeWithoutAck } from '../helpers/dead-lettering-consumer';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';
import { shootBothWidths } from '../support/screenshots';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.SHOTS_DIR ?? path.join(REPO, 'test-results');
const LOCAL = { connectionId: 'local' };

const shoot = (page: Page, name: string) => shootBothWidths(page, SHOTS, name);

const targets = (page: Page) =>
  page
    .getByTestId('activity-entry')
    .evaluateAll((items) =>
      items.map((item) => `${item.getAttribute('data-origin')} ${item.textContent ?? ''}`),
    );

/** Activity written by an older console in `dataDir`, before this one starts. */
function seedActivity(dataDir: string): void {
  // An entry written before `origin` existed, and a console clean-up that found nothing.
  const base = { actor: 'console (alice)', connectionId: 'local', durationMs: 2 };
  const old = [
    {
      ...base,
      seq: 1,
      at: Date.now() - 60_000,
      action: 'set_realm_auth',
      target: 'legacy-realm',
      params: { realm: 'legacy-realm', required: true },
      ok: true,
      error: null,
    },
    {
      ...base,
      seq: 2,
      at: Date.now() - 30_000,
      origin: 'console',
      action: 'remove_realm',
      target: 'switchboard-demo',
      params: { realm: 'switchboard-demo' },
      ok: true,
      error: null,
      note: 'already gone',
    },
    // A replay on a plain tyo-mq broker, whose reply names no realm, consumer or event.
    {
      ...base,
      seq: 3,
      at: Date.now() - 20_000,
      connectionId: 'plain-broker',
      connectionName: 'Plain tyo-mq',
      origin: 'operator',
      action: 'dlq_replay',
      target: 'legacy-realm',
      params: { realm: 'legacy-realm', msg_id: 'dlq-old-1' },
      ok: true,
      error: null,
      result: 'replayed 1',
      trail: [{ from: 'dlq-old-1', to: 'msg-new-1' }],
    },
  ];
  writeFileSync(
    path.join(dataDir, 'console-activity.jsonl'),
    old.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
    { mode: 0o600 },
  );
}

describe('Activity page: operator actions and the console’s own', () => {
  const fx = consoleFixture('switchboard-e2e-activity-', { beforeStart: seedActivity });

  beforeAll(async () => {
    await callApi(fx.app, 'createRealm', {
      ...LOCAL,
      realm: 'ops-realm',
      authRequired: true,
      ephemeral: false,
    });
    await callApi(fx.app, 'startDemo', LOCAL);
    await callApi(fx.app, 'stopDemo', LOCAL);
  }, 60_000);

  it('shows operator actions by default and the console’s own on request', async () => {
    await fx.page.getByTestId('nav-activity').click();
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(2);
    const operator = await targets(fx.page);
    expect(operator[0]).toMatch(/^operator .*Create realm · ops-realm · on Local broker/);
    expect(operator[1]).toMatch(/^operator .*Require auth · legacy-realm · on Local broker/);
    expect(await fx.page.getByTestId('activity-origin').count()).toBe(0);
    expect(await fx.page.getByTestId('activity-include-console').isChecked()).toBe(false);
    await shoot(fx.page, 'activity-operator');

    await fx.page.getByTestId('activity-include-console').check();
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(5);
    const all = await targets(fx.page);
    const consoleOwn = all.filter((entry) => entry.startsWith('console '));
    expect(consoleOwn).toHaveLength(3);
    expect(consoleOwn.every((entry) => entry.includes('switchboard-demo'))).toBe(true);
    expect(await fx.page.getByTestId('activity-origin').count()).toBe(3);
    // No failure anywhere; the clean-up that found nothing says so.
    expect(
      await fx.page.locator('[data-testid="activity-entry"] [data-state="failed"]').count(),
    ).toBe(0);
    expect(await fx.page.getByTestId('activity-note').allTextContents()).toEqual(['already gone']);
    await shoot(fx.page, 'activity-all');

    // New console commands arrive live while the toggle is on, and vanish when it is off.
    await callApi(fx.app, 'startDemo', LOCAL);
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(6);
    await fx.page.getByTestId('activity-include-console').uncheck();
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(2);
    // …and do not arrive while it is off.
    await callApi(fx.app, 'stopDemo', LOCAL);
    await callApi(fx.app, 'setRealmFlag', {
      ...LOCAL,
      realm: 'ops-realm',
      flag: 'acceptance',
      value: false,
    });
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(3);
    expect((await targets(fx.page)).every((entry) => entry.startsWith('operator '))).toBe(true);
    expect(fx.pageErrors).toEqual([]);
  }, 90_000);

  it('shows a dead-letter replay’s trail: DLQ id → new id → consumer, key, realm', async () => {
    const CONSUMER = 'invoice-archiver';
    const key = subscriptionKey('billing', 'invoices/issued');
    // A consumer that never ACKs: each copy is dead-lettered after one 200 ms attempt.
    const consumer = await fx.connect();
    subscribeWithoutAck(consumer, CONSUMER, 'billing', 'invoices/issued');
    const listClients = () =>
      callApi<{ realms: { name: string; consumers: { name: string; online: boolean }[] }[] }>(
        fx.app,
        'listClients',
        LOCAL,
      );
    const online = async () =>
      (await listClients()).realms
        .find((r) => r.name === 'default')
        ?.consumers.find((c) => c.name === CONSUMER)?.online ?? null;
    await expect.poll(online, { timeout: 10_000 }).toBe(true);
    const producer = await fx.connect();
    producer.emit(ClientEvent.PRODUCER, jsProducerPayload('billing'));
    for (const n of [1, 2, 3]) {
      producer.emit(
        ClientEvent.PRODUCE,
        producePayload('invoices/issued', { invoice: n }, { from: 'billing' }),
      );
    }
    const dead = async () =>
      (await callApi<DeadLetterPage>(fx.app, 'listDeadLetters', { ...LOCAL, realm: 'default' }))
        .entries;
    await expect.poll(async () => (await dead()).length, { timeout: 20_000 }).toBe(3);
    const ids = (await dead()).map((e) => e.id);
    // Offline, so the replayed copies wait in its queue under their new ids.
    consumer.close();
    await expect.poll(online, { timeout: 10_000 }).toBe(false);

    await fx.page.getByTestId('nav-dead-letters').click();
    await expect.poll(() => fx.page.getByTestId('dlq-row').count(), { timeout: 15_000 }).toBe(3);
    await fx.page.locator(`[data-testid="dlq-row"][data-id="${ids[0]}"] .ops-row__main`).click();
    await fx.page.getByTestId('dlq-detail-replay').click();
    // The confirmation opens in the detail's button row, next to the button, not elsewhere.
    const confirm = fx.page.getByTestId('dlq-confirm');
    await confirm.waitFor();
    expect(await confirm.count()).toBe(1);
    expect(
      await confirm.evaluate((node) => node.closest('[data-testid="dlq-detail-actions"]') !== null),
    ).toBe(true);
    await shoot(fx.page, 'dead-letters-confirm');
    await fx.page.getByTestId('dlq-confirm-yes').click();
    await expect.poll(() => fx.page.getByTestId('dlq-row').count()).toBe(2);
    await fx.page.getByTestId('dlq-select-all').click();
    await fx.page.getByTestId('dlq-replay-selected').click();
    // A selection's confirmation stays above the list (no detail is open for it).
    expect(
      await fx.page
        .locator('[data-testid="dlq-detail-actions"] [data-testid="dlq-confirm"]')
        .count(),
    ).toBe(0);
    await fx.page.getByTestId('dlq-confirm-yes').click();
    await expect.poll(() => fx.page.getByTestId('dlq-empty').count()).toBe(1);

    const peek = await callApi<QueuePeek>(fx.app, 'peekQueue', {
      ...LOCAL,
      realm: 'default',
      consumer: CONSUMER,
      key,
    });
    const queued = peek.messages.map((m) => m.msgId);
    expect(queued).toHaveLength(3);

    await fx.page.getByTestId('nav-activity').click();
    const replays = fx.page.locator('[data-testid="activity-entry"][data-action="dlq_replay"]');
    await expect.poll(() => replays.count()).toBe(2);
    const steps = await replays.evaluateAll((entries) =>
      entries.map((entry) =>
        [...entry.querySelectorAll('[data-testid="activity-trail-step"]')].map((step) => {
          const text = (id: string) =>
            step.querySelector(`[data-testid="activity-trail-${id}"]`)?.textContent ?? null;
          return {
            from: text('from'),
            to: text('to'),
            consumer: text('consumer'),
            event: text('event'),
            realm: text('realm'),
          };
        }),
      ),
    );
    const where = { consumer: CONSUMER, event: key, realm: 'default' };
    // Newest first: the two selected, then the one replayed from its detail.
    expect(steps[1]).toEqual([{ from: ids[0], to: expect.any(String), ...where }]);
    expect(steps[0]!.map((s) => s.from).sort()).toEqual([ids[1], ids[2]].sort());
    for (const step of steps[0]!) expect(step).toMatchObject(where);
    // Each new id is the one its copy waits under in the consumer's queue.
    expect(
      steps
        .flat()
        .map((s) => s.to)
        .sort(),
    ).toEqual([...queued].sort());
    expect(steps.flat().every((s) => !ids.includes(s.to!))).toBe(true);
    await fx.page.getByTestId('activity-filter-action').selectOption('dlq_replay');
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(2);
    // The plain broker's replay (another connection): its trail has the ids, and says no more.
    await fx.page.getByTestId('activity-filter-connection').selectOption('*');
    await expect.poll(() => fx.page.getByTestId('activity-entry').count()).toBe(3);
    const plain = fx.page.getByTestId('activity-entry').last().getByTestId('activity-trail-step');
    expect(await plain.textContent()).toBe('dlq-old-1 → msg-new-1the broker did not say where');
    await shoot(fx.page, 'activity-trail');
    expect(fx.pageErrors).toEqual([]);
  }, 120_000);
});
