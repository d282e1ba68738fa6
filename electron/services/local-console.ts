/**
 * Composition root of the console's Node services for one host (web host or Electron main):
 * a BrokerSupervisor for the local broker, a ConnectionManager polling it, and the ConsoleService.
 * Wiring only.
 */
import path from 'node:path';
import type { LocalBrokerStatus } from '../../shared/console-api';
import type { BrokerLauncher } from './broker-launcher';
import { keepBrokerEndpointFile } from './broker-endpoint-file';
import { BrokerSupervisor } from './broker-supervisor';
import type { BrokerSupervisorOptions } from './supervisor-options';
import { ConnectionManager } from './connection-manager';
import { ConnectionProfileStore } from './connection-profiles';
import { loadRemoteConnections } from './connections-console-service';
import { createConsoleService, type ClosableConsoleService } from './console-service';
import { ensureLocalAdminToken, FileSecretStore, type SecretStore } from './secret-store';

export interface LocalConsoleOptions {
  /** Local broker port; 0 = any free port. */
  brokerPort: number;
  /** Local broker bind address. Default `127.0.0.1`. */
  brokerHost?: string;
  /**
   * The local broker's MQTT (TCP) port, on `brokerHost` (`--mqtt-port`; docs/mqtt.md); 0 = any
   * free port, reused for restarts once bound (`status().mqttPort`). Default: the settings
   * file's `mqtt` block. The console CLI and the desktop app pass 1883 (`--broker-mqtt-port`).
   * A taken port stops the broker: `startBroker()` rejects with a `PortInUseError` naming it.
   */
  mqttPort?: number;
  /** Local broker data directory. */
  dataDir: string;
  /** Broker settings file. Default `<dataDir>/settings.json` (created, with the `default` realm
   * open, on first start), so realm and token changes made from the console persist. */
  settingsFile?: string;
  /** Where the console keeps the local admin token. Default: `FileSecretStore(dataDir)` (a 0600
   * file, the web host's); the Electron main process passes a `SafeStorageSecretStore`. */
  secrets?: SecretStore;
  /** How to start the broker process. Default: fork `broker/cli.ts` through tsx. */
  launcher?: BrokerLauncher;
  /** Metrics period in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Stop live taps and topic trees no page listens to after this long, ms. Default
   * `$SWITCHBOARD_TAP_ORPHAN_MS` when set (`tapOrphanMsFromEnv`), else 10,000. */
  tapOrphanMs?: number;
  /** Update period of every topic tree, ms. Default `TOPIC_TREE_UPDATE_MS` (1,000; tests). */
  topicTreePeriodMs?: number;
  /** Extra supervisor options (timeouts, backoff, log capacity). */
  supervisor?: Partial<BrokerSupervisorOptions>;
}

export interface LocalConsole {
  service: ClosableConsoleService;
  supervisor: BrokerSupervisor;
  connections: ConnectionManager;
  /** Starts the local broker; resolves once running, rejects with a `SwitchboardError` if it cannot. */
  startBroker(): Promise<LocalBrokerStatus>;
  /** Stops the console's own work on the broker (a running demo removes its realm), then
   * polling and the broker. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * The local broker's environment as the mission wants it (issue 12): auth on, SQLite auth store,
 * the console's admin token (§5: a set `TYO_MQ_ADMIN_TOKEN` is used, never generated or written
 * to an env file), and an env file inside the data directory so a stray `.env` in the working
 * directory cannot change the broker. SQLite storage and the HTTP API are the CLI's defaults.
 */
export function localBrokerEnv(
  base: NodeJS.ProcessEnv,
  dataDir: string,
  adminToken: string,
): NodeJS.ProcessEnv {
  return {
    ...base,
    TYO_MQ_ENV_FILE: path.join(dataDir, 'broker.env'),
    TYO_MQ_AUTH_ENABLED: 'true',
    TYO_MQ_AUTH_STORE: 'true',
    TYO_MQ_ADMIN_TOKEN: adminToken,
    // The supervisor sends SIGKILL 5 s after SIGTERM: the broker's drain must end before that
    // (its default bound is 10 s), so stuck work is cut short by the broker, logged, not killed.
    TYO_MQ_SHUTDOWN__TIMEOUT_MS: base.TYO_MQ_SHUTDOWN__TIMEOUT_MS ?? '4000',
  };
}

/** The variable setting the console's tap orphan delay in ms (docs/console.md "Live tap"). */
export const TAP_ORPHAN_MS_ENV = 'SWITCHBOARD_TAP_ORPHAN_MS';

/**
 * `$SWITCHBOARD_TAP_ORPHAN_MS` as a delay in ms: unset or empty, `undefined` (the service's
 * 10,000 default). Lets the web console (whose flags stay the user's) be started with a short
 * delay, as the e2e tests do.
 * @throws Error when it is set to anything but a positive integer (a typo must not fall back).
 */
export function tapOrphanMsFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env[TAP_ORPHAN_MS_ENV];
  if (raw === undefined || raw === '') return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new Error(`${TAP_ORPHAN_MS_ENV} must be a positive integer (ms), got '${raw}'`);
  }
  return ms;
}

/** @throws Error when the secret store cannot be read or written (the console cannot run), or
 * when `$SWITCHBOARD_TAP_ORPHAN_MS` is invalid (`tapOrphanMsFromEnv`). */
export function createLocalConsole(options: LocalConsoleOptions): LocalConsole {
  const secrets = options.secrets ?? new FileSecretStore(options.dataDir);
  const adminToken = ensureLocalAdminToken(secrets);
  const tapOrphanMs = options.tapOrphanMs ?? tapOrphanMsFromEnv(process.env);
  const supervisor = new BrokerSupervisor({
    // A broker that cannot come up three times in a row will not: say so instead of retrying.
    maxStartFailures: 3,
    ...options.supervisor,
    env: localBrokerEnv(options.supervisor?.env ?? process.env, options.dataDir, adminToken),
    port: options.brokerPort,
    host: options.brokerHost,
    dataDir: options.dataDir,
    settingsFile: options.settingsFile ?? path.join(options.dataDir, 'settings.json'),
    launcher: options.launcher,
    mqttPort: options.mqttPort,
  });
  // A convenience for `switchboard-admin --console-data-dir`: when the file cannot be written
  // the CLI still works with `--url`, so a failure must not stop the console.
  const stopEndpointFile = keepBrokerEndpointFile(supervisor, options.dataDir, () => {});
  const connections = new ConnectionManager({ intervalMs: options.pollIntervalMs });
  connections.addLocal(supervisor, adminToken);
  // Remote profiles live beside the local broker's data, without their secrets.
  const profiles = new ConnectionProfileStore(options.dataDir, secrets);
  loadRemoteConnections(connections, profiles);
  const service = createConsoleService({
    connections,
    supervisor,
    profiles,
    secrets,
    dataDir: options.dataDir,
    tapOrphanMs,
    topicTreePeriodMs: options.topicTreePeriodMs,
  });
  let closing: Promise<void> | null = null;
  return {
    service,
    supervisor,
    connections,
    startBroker: () => supervisor.start(),
    close: () => {
      closing ??= (async () => {
        await service.shutdown();
        connections.close();
        service.close();
        await supervisor.stop();
        stopEndpointFile();
      })();
      return closing;
    },
  };
}
