/**
 * Demo mode and the console's own lifecycle, with real `npm run console` processes:
 *   - SIGTERM or SIGINT (Ctrl-C) while a demo runs: the demo stops cleanly before the local broker does (its realm
 *     is gone when the same broker data is opened again, without any console cleaning up).
 *   - SIGKILL while a demo runs, then a new console on the same data directory: the leftover
 *     demo realm is removed at start, and the console reports no demo running.
 */
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
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

/** What one case opened; the case's own `onTestFinished` closes it (the cases run at once). */
interface Opened {
  dir?: TempDir;
  app: RunningConsole | null;
  supervisor: BrokerSupervisor | null;
  manager: ManagerClient | null;
}

/** A case's resources, closed when it finishes, pass or fail. */
function opened(onTestFinished: TestContext['onTestFinished']): Opened {
  const o: Opened = { app: null, supervisor: null, manager: null };
  onTestFinished(async () => {
    o.manager?.close();
    await o.supervisor?.stop();
    await stopConsole(o.app, 'SIGKILL');
    await o.dir?.remove();
  });
  return o;
}

async function realmNames(console_: RunningConsole): Promise<string[]> {
  const list = await callApi<RealmList>(console_, 'listRealms', LOCAL);
  return list.realms.map((r) => r.name);
}

async function startDemo(console_: RunningConsole): Promise<void> {
  const status = await callApi<DemoStatus>(console_, 'startDemo', LOCAL);
  expect(status.running).toBe(true);
  expect(await realmNames(console_)).toContain(DEMO);
}

// The three cases run concurrently (issue 26): each has its own console, data directory and
// clean-up, and most of their time is waiting for consoles and brokers to start and stop.
describe.concurrent('demo mode across console stops', () => {
  it.for(['SIGTERM', 'SIGINT'] as const)(
    'stops the demo and removes its realm when the console is stopped with %s',
    { timeout: 180_000 },
    async (signal, { onTestFinished, expect }) => {
      const o = opened(onTestFinished);
      o.dir = await makeTempDir('switchboard-e2e-demo-stop-');
      const dataDir = path.join(o.dir.path, 'data');
      const app = await startConsole(dataDir);
      o.app = app;
      await startDemo(app);
      // To the whole process group, as a terminal sends Ctrl-C.
      await stopConsole(app, signal);
      o.app = null;

      // The same broker data, opened by a bare supervisor (no console that could clean up).
      const token = localAdminToken(dataDir);
      const supervisor = new BrokerSupervisor({
        port: 0,
        dataDir,
        settingsFile: path.join(dataDir, 'settings.json'),
        env: localBrokerEnv(process.env, dataDir, token),
      });
      o.supervisor = supervisor;
      const status = await supervisor.start();
      const manager = new ManagerClient({ url: `http://127.0.0.1:${status.port}`, secret: token });
      o.manager = manager;
      const reply = await manager.command({ command: 'get' });
      const names = toRealmList('local', reply.settings).realms.map((r) => r.name);
      expect(names).not.toContain(DEMO);
      expect(names).toContain('default');
    },
  );

  it('removes a demo realm left by a killed console when the next console starts', async ({
    onTestFinished,
    expect,
  }) => {
    const o = opened(onTestFinished);
    o.dir = await makeTempDir('switchboard-e2e-demo-kill-');
    const dataDir = path.join(o.dir.path, 'data');
    const first = await startConsole(dataDir);
    o.app = first;
    await startDemo(first);
    await stopConsole(first, 'SIGKILL');

    const app = await startConsole(dataDir);
    o.app = app;
    const broker = await callApi<LocalBrokerStatus>(app, 'getLocalBroker', {});
    expect(broker.state).toBe('running');
    await expect.poll(() => realmNames(app), { timeout: 15_000 }).not.toContain(DEMO);
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
