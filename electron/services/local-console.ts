/**
 * Composition root of the console's Node services for one host (web host or Electron main):
 * a BrokerSupervisor for the local broker, a ConnectionManager polling it, and the ConsoleService.
 * Wiring only.
 */
import type { LocalBrokerStatus } from '../../shared/console-api';
import type { BrokerLauncher } from './broker-launcher';
import { BrokerSupervisor, type BrokerSupervisorOptions } from './broker-supervisor';
import { ConnectionManager } from './connection-manager';
import { createConsoleService, type ClosableConsoleService } from './console-service';

export interface LocalConsoleOptions {
  /** Local broker port; 0 = any free port. */
  brokerPort: number;
  /** Local broker bind address. Default `127.0.0.1`. */
  brokerHost?: string;
  /** Local broker data directory. */
  dataDir: string;
  settingsFile?: string;
  /** How to start the broker process. Default: fork `broker/cli.ts` through tsx. */
  launcher?: BrokerLauncher;
  /** Metrics period in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Extra supervisor options (timeouts, backoff, log capacity). */
  supervisor?: Partial<BrokerSupervisorOptions>;
}

export interface LocalConsole {
  service: ClosableConsoleService;
  supervisor: BrokerSupervisor;
  connections: ConnectionManager;
  /** Starts the local broker; resolves once running, rejects with a `SwitchboardError` if it cannot. */
  startBroker(): Promise<LocalBrokerStatus>;
  /** Stops polling and the broker. Safe to call more than once. */
  close(): Promise<void>;
}

export function createLocalConsole(options: LocalConsoleOptions): LocalConsole {
  const supervisor = new BrokerSupervisor({
    // A broker that cannot come up three times in a row will not: say so instead of retrying.
    maxStartFailures: 3,
    ...options.supervisor,
    port: options.brokerPort,
    host: options.brokerHost,
    dataDir: options.dataDir,
    settingsFile: options.settingsFile,
    launcher: options.launcher,
  });
  const connections = new ConnectionManager({ intervalMs: options.pollIntervalMs });
  connections.addLocal(supervisor);
  const service = createConsoleService({ connections, supervisor });
  let closing: Promise<void> | null = null;
  return {
    service,
    supervisor,
    connections,
    startBroker: () => supervisor.start(),
    close: () => {
      closing ??= (async () => {
        connections.close();
        service.close();
        await supervisor.stop();
      })();
      return closing;
    },
  };
}
