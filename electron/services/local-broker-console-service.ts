/**
 * The Local broker view's methods (`shared/console-api-local.ts`): start/stop, the supervisor's
 * log tail (batched live on `localBrokerLog`), the settings file editor and demo mode.
 *
 * Settings: checked by settings-check.ts with the broker's own schemas, written atomically
 * (`writeFileAtomic`: temp file, fsync, rename — the same writer the broker uses), then applied
 * with the signed `reload_settings` command (so the save returns once the broker uses the file)
 * or a restart. Source: docs/configuration.md "Reload and persistence".
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../broker/index';
import { LOCAL_CONNECTION_ID, type ConsoleService } from '../../shared/console-api';
import type { BrokerLogLineView } from '../../shared/console-api-local';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { BrokerSupervisor } from './broker-supervisor';
import type { ConnectionManager } from './connection-manager';
import type { ConsoleEventHub } from './console-event-hub';
import { DemoWorkload } from './demo-workload';
import type { ManagerPool } from './manager-pool';
import { checkSettingsText } from './settings-check';

export interface LocalBrokerServiceDeps {
  supervisor: BrokerSupervisor;
  connections: ConnectionManager;
  pool: ManagerPool;
  hub: ConsoleEventHub;
  /** Log batch period in ms. Default 250. */
  logBatchMs?: number;
}

type LocalMethodNames =
  | 'startLocalBroker'
  | 'stopLocalBroker'
  | 'getLocalBrokerLogs'
  | 'readLocalSettings'
  | 'validateLocalSettings'
  | 'saveLocalSettings'
  | 'startDemo'
  | 'stopDemo'
  | 'getDemo';

function requireLocal(connectionId: string): void {
  if (connectionId !== LOCAL_CONNECTION_ID) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      'Demo mode runs against the local broker only: pick the "Local broker" connection',
    );
  }
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SwitchboardError(
      'SWB_ERR_INTERNAL',
      `Cannot read ${path}: ${(error as Error).message}`,
    );
  }
}

export function createLocalBrokerConsoleService({
  supervisor,
  connections,
  pool,
  hub,
  logBatchMs = 250,
}: LocalBrokerServiceDeps): {
  methods: Pick<ConsoleService, LocalMethodNames>;
  /** Stops a running demo (sockets closed, realm removed) while the broker still runs; at most
   * `timeoutMs` (default 5000), after which its sockets are closed and the realm is left for the
   * next start to remove. Never rejects. Call before stopping the broker. */
  shutdown(timeoutMs?: number): Promise<void>;
  /** Detaches from the supervisor and closes the demo's sockets at once. */
  close(): void;
} {
  let pendingLines: BrokerLogLineView[] = [];
  const flushTimer = setInterval(() => {
    if (pendingLines.length === 0) return;
    const lines = pendingLines;
    pendingLines = [];
    hub.emit('localBrokerLog', { lines });
  }, logBatchMs);
  flushTimer.unref();
  const detachLog = supervisor.onLog((line) => {
    pendingLines.push(line);
    // Bounded like the supervisor's own tail, whatever the broker writes between two flushes.
    if (pendingLines.length > 500) pendingLines.splice(0, pendingLines.length - 500);
  });
  const demo = new DemoWorkload({
    connectionId: LOCAL_CONNECTION_ID,
    url: () => connections.profile(LOCAL_CONNECTION_ID).target()?.baseUrl ?? null,
    manager: () => pool.get(LOCAL_CONNECTION_ID, 'console'),
    onStatus: (status) => hub.emit('demo', status),
  });
  // A restarted broker keeps its port: reconnect the manager client now rather than after its
  // backoff, so the first command after a start or restart does not time out.
  const detachStatus = supervisor.onStatus((status) => {
    if (status.state !== 'running') return;
    try {
      pool.get(LOCAL_CONNECTION_ID).reconnectNow();
    } catch {
      // No credential or not reachable yet: the next call reports it.
    }
    // A demo realm without a running demo was left by a console that was killed: remove it
    // rather than show "no demo" beside a realm full of stale demo state (demo-workload.ts).
    void demo.removeLeftover();
  });
  const settingsPath = (): string => {
    const path = supervisor.settingsFile;
    if (!path)
      throw new SwitchboardError('SWB_ERR_NOT_FOUND', 'The local broker has no settings file');
    return path;
  };

  return {
    methods: {
      startLocalBroker: () => supervisor.start(),
      stopLocalBroker: async () => {
        if (demo.status().running) await demo.stop();
        await supervisor.stop();
        return supervisor.status();
      },
      getLocalBrokerLogs: async () => ({ lines: supervisor.logs() }),
      readLocalSettings: async () => {
        const path = settingsPath();
        const text = await readText(path);
        return { path, text: text ?? '', exists: text !== null };
      },
      validateLocalSettings: async ({ text }) =>
        checkSettingsText(text, await readText(settingsPath())),
      saveLocalSettings: async ({ text, restart }) => {
        const path = settingsPath();
        const check = checkSettingsText(text, await readText(path));
        if (!check.valid) return { ...check, saved: false, applied: 'none' };
        await writeFileAtomic(path, text.endsWith('\n') ? text : `${text}\n`);
        if (restart) {
          await supervisor.restart();
          return { ...check, saved: true, applied: 'restart' };
        }
        if (supervisor.status().state !== 'running')
          return { ...check, saved: true, applied: 'none' };
        await pool.get(LOCAL_CONNECTION_ID).command({ command: 'reload_settings' });
        return { ...check, saved: true, applied: 'reload' };
      },
      startDemo: async ({ connectionId }) => {
        requireLocal(connectionId);
        return demo.start();
      },
      stopDemo: async ({ connectionId }) => {
        requireLocal(connectionId);
        return demo.stop();
      },
      getDemo: async ({ connectionId }) => {
        requireLocal(connectionId);
        return demo.status();
      },
    },
    shutdown: async (timeoutMs = 5_000) => {
      if (!demo.status().running) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        demo.stop().catch(() => undefined),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
    close: () => {
      clearInterval(flushTimer);
      detachLog();
      detachStatus();
      demo.abandon();
    },
  };
}
