/**
 * Demo mode and the console's own lifecycle, with real `npm run console` processes:
 *   - SIGTERM or SIGINT (Ctrl-C) while a demo runs: the demo stops cleanly before the local broker does (its realm
 *     is gone when the same broker data is opened again, without any console cleaning up).
 *   - SIGKILL while a demo runs, then a new console on the same data directory: the leftover
 *     demo realm is removed at start, and the console reports no demo running.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerSupervisor } from '../../electron/services/broker-supervisor';
import { localBrokerEnv } from '../../electron/services/local-console';
import { ManagerClient } from '../../electron/services/manager-client';
import { toRealmList } from '../../electron/services/manager-pool';
import type { LocalBrokerStatus, RealmList } from '../../shared/console-api';
import type { DemoStatus } from '../../shared/console-api-local';
import type { ActivityList } from '../../shared/console-api-activity';
import {
  callApi,
  localAdminToken,
  startConsole,
  stopConsole,
  type RunningConsole,
} from '../support/console-process';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const DEMO = 'switchboard-demo';
const LOCAL = { connectionId: 'local' };

let dir: TempDir | undefined;
let app: RunningConsole | null = null;
let supervisor: BrokerSupervisor | null = null;
let manager: ManagerClient | null = null;

afterEach(async () => {
  manager?.close();
  await supervisor?.stop();
  await stopConsole(app, 'SIGKILL');
  await dir?.remove();
  app = supervisor = manager = null;
  dir = undefined;
});

async function realmNames(console_: RunningConsole): Promise<string[]> {
  const list = await callApi<RealmList>(console_, 'listRealms', LOCAL);
  return list.realms.map((r) => r.name);
}

async function startDemo(console_: RunningConsole): Promise<void> {
  const status = await callApi<DemoStatus>(console_, 'startDemo', LOCAL);
  expect(status.running).toBe(true);
  expect(await realmNames(console_)).toContain(DEMO);
}

describe('demo mode across console stops', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops the demo and removes its realm when the console is stopped with %s',
    async (signal) => {
      dir = await makeTempDir('switchboard-e2e-demo-stop-');
      const dataDir = path.join(dir.path, 'data');
      app = await startConsole(dataDir);
      await startDemo(app);
      // To the whole process group, as a terminal sends Ctrl-C.
      await stopConsole(app, signal);
      app = null;

      // The same broker data, opened by a bare supervisor (no console that could clean up).
      const token = localAdminToken(dataDir);
      supervisor = new BrokerSupervisor({
        port: 0,
        dataDir,
        settingsFile: path.join(dataDir, 'settings.json'),
        env: localBrokerEnv(process.env, dataDir, token),
      });
      const status = await supervisor.start();
      manager = new ManagerClient({ url: `http://127.0.0.1:${status.port}`, secret: token });
      const reply = await manager.command({ command: 'get' });
      const names = toRealmList('local', reply.settings).realms.map((r) => r.name);
      expect(names).not.toContain(DEMO);
      expect(names).toContain('default');
    },
    180_000,
  );

  it('removes a demo realm left by a killed console when the next console starts', async () => {
    dir = await makeTempDir('switchboard-e2e-demo-kill-');
    const dataDir = path.join(dir.path, 'data');
    app = await startConsole(dataDir);
    await startDemo(app);
    await stopConsole(app, 'SIGKILL');

    app = await startConsole(dataDir);
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    expect(broker.state).toBe('running');
    await expect.poll(() => realmNames(app!), { timeout: 15_000 }).not.toContain(DEMO);
    expect(await realmNames(app)).toContain('default');
    const demo = await callApi<DemoStatus>(app, 'getDemo', LOCAL);
    expect(demo.running).toBe(false);
    // The cleanup is the console's own work, recorded as such and not as a failure.
    const activity = await callApi<ActivityList>(app, 'listActivity', LOCAL);
    const cleanup = activity.entries.filter(
      (e) => e.action === 'remove_realm' && e.target === DEMO,
    );
    expect(cleanup.length).toBeGreaterThan(0);
    expect(cleanup[0]).toMatchObject({ ok: true, origin: 'console' });
    // A second start finds nothing to remove and the demo can run again.
    await startDemo(app);
    await callApi<DemoStatus>(app, 'stopDemo', LOCAL);
    expect(await realmNames(app)).not.toContain(DEMO);
  }, 240_000);
});
