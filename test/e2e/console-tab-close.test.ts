/**
 * End to end: closing the browser tab of a live tap or a topic tree removes its consumer from
 * the real local broker while another console tab stays open (issue 27 newcomer trial, finding
 * 9: the host's orphan sweep waits for every page to be gone, so the `#` consumer stayed on the
 * broker as long as any console tab was open). The page stops what it started on `pagehide`.
 */
import { describe, expect, it } from 'vitest';
import type { ClientList } from '../../shared/console-api-operations';
import { callApi } from '../support/console-process';
import { consoleFixture } from '../support/console-fixture';

const LOCAL = { connectionId: 'local' };

describe('closing a console tab', () => {
  const fx = consoleFixture('switchboard-e2e-tabclose-');

  /** The console's own tap and tree consumers on the broker (`switchboard-tap-…`). */
  async function consoleConsumers(): Promise<string[]> {
    const list = await callApi<ClientList>(fx.app, 'listClients', LOCAL);
    return list.realms
      .flatMap((r) => r.consumers.map((c) => c.name))
      .filter((name) => name.startsWith('switchboard-tap-'));
  }

  it('stops its topic tree and its live tap, though another tab stays open', async () => {
    // fx.page stays open on the Overview the whole time: the host's sweep never fires, so a
    // wait longer than its 10 s delay still tells the page's own stop apart.
    expect(await consoleConsumers()).toEqual([]);
    const context = fx.page.context();

    const treeTab = await context.newPage();
    await treeTab.goto(fx.app.url);
    await treeTab.getByTestId('nav-topics').click();
    await treeTab.getByTestId('topics-state').filter({ hasText: 'watching' }).waitFor();
    await expect.poll(consoleConsumers).toHaveLength(1);
    await treeTab.close({ runBeforeUnload: true });
    await expect.poll(consoleConsumers, { timeout: 15_000 }).toEqual([]);

    const tapTab = await context.newPage();
    await tapTab.goto(fx.app.url);
    await tapTab.getByTestId('nav-tap').click();
    await tapTab.getByTestId('tap-realm').fill('default');
    await tapTab.getByTestId('tap-pattern').fill('garden/#');
    await tapTab.getByTestId('tap-start').click();
    await expect.poll(consoleConsumers).toHaveLength(1);
    await tapTab.close({ runBeforeUnload: true });
    await expect.poll(consoleConsumers, { timeout: 15_000 }).toEqual([]);
  });
});
