/**
 * The headless broker: `npm run broker -- [--port <n>] [--host <h>] [--data-dir <dir>]
 * [--settings <file>] [--no-http-api] [--log-level <level>]`.
 *
 * Embedded defaults: port 17352 (`--port`, else `TYO_MQ_PORT`, `spec/protocol-admin.md` §13
 * Note), host 127.0.0.1 (`--host 0.0.0.0` to accept other machines), data directory `./.data` holding the SQLite message store
 * `tyo-mq.sqlite` (`--storage memory` keeps copies in memory), and the HTTP API (`/health`,
 * `/api/metrics`, `/api/stats`) switched on, so the console can read this broker over the
 * wire. A settings file (`--settings`, else `TYO_MQ_SETTINGS_FILE`) overrides the defaults.
 *
 * Exit codes (`BrokerExitCode`): 0 after SIGINT/SIGTERM, 2 bad flags or settings, 3 port
 * taken, 1 crash. When forked with an IPC channel it reports `broker-ready` / `broker-fatal`.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BrokerExitCode, type BrokerProcessMessage } from '../shared/broker-process';
import { SwitchboardError } from '../shared/error-catalogue';
import { Protocol } from '../shared/protocol-events';
import { DEFAULT_ENV_FILE, loadEnvFile } from './auth/admin-bootstrap';
import { readSettingsFile } from './config/load-settings';
import { createBroker, type Broker } from './index';
import { createLogger } from './logging/logger';
import { BROKER_VERSION } from './version';

const USAGE =
  'Usage: npm run broker -- [--port <n>] [--host <h>] [--data-dir <dir>] [--settings <file>] [--storage sqlite|memory] [--no-http-api] [--log-level <level>]';

function send(message: BrokerProcessMessage): void {
  process.send?.(message);
}

function fail(code: BrokerProcessMessage & { type: 'broker-fatal' }, exitCode: number): never {
  process.stderr.write(`switchboard broker: ${code.message}\n`);
  send(code);
  process.exit(exitCode);
}

function parseFlags() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        settings: { type: 'string' },
        'no-http-api': { type: 'boolean' },
        storage: { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    return fail(
      {
        type: 'broker-fatal',
        code: 'SWB_ERR_VALIDATION',
        message: `${(err as Error).message}\n${USAGE}`,
      },
      BrokerExitCode.CONFIG,
    );
  }
}

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host.startsWith('127.');

async function main(): Promise<void> {
  // §5, §13: the env file (TYO_MQ_ENV_FILE, else .env) is loaded before anything else, without
  // overriding variables already set.
  loadEnvFile(resolve(process.env.TYO_MQ_ENV_FILE ?? DEFAULT_ENV_FILE));
  const flags = parseFlags();
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const portText = flags.port ?? process.env.TYO_MQ_PORT ?? String(Protocol.DEFAULT_PORT);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    fail(
      { type: 'broker-fatal', code: 'SWB_ERR_VALIDATION', message: `Invalid port: ${portText}` },
      BrokerExitCode.CONFIG,
    );
  }
  // Loopback by default: exposing the broker (and its HTTP API) to the network must be a
  // deliberate `--host 0.0.0.0`, and without auth it is warned about below.
  const host = flags.host ?? '127.0.0.1';
  if (flags.storage !== undefined && flags.storage !== 'sqlite' && flags.storage !== 'memory') {
    fail(
      {
        type: 'broker-fatal',
        code: 'SWB_ERR_VALIDATION',
        message: `Invalid --storage ${flags.storage}: use sqlite or memory`,
      },
      BrokerExitCode.CONFIG,
    );
  }
  const dataDir = resolve(flags['data-dir'] ?? '.data');
  const logger = createLogger({ level: flags['log-level'] });

  let broker: Broker;
  try {
    mkdirSync(dataDir, { recursive: true });
    const settingsPath = flags.settings ?? process.env.TYO_MQ_SETTINGS_FILE;
    const fromFile = settingsPath ? await readSettingsFile(settingsPath) : {};
    const httpApi = { enabled: true, ...(fromFile.http_api as object | undefined) };
    if (flags['no-http-api']) httpApi.enabled = false;
    // Embedded default: durable copies in SQLite inside the data directory.
    const storage = flags.storage ?? fromFile.storage ?? 'sqlite';
    const auth = { ...(fromFile.auth as Record<string, unknown> | undefined) };
    if (process.env.TYO_MQ_AUTH_ENABLED === 'true') auth.enabled = true;
    if (process.env.TYO_MQ_AUTO_ADMIN_TOKEN === 'false') auth.auto_admin_token = false;
    if (auth.enabled !== true && !isLoopback(host)) {
      const warning = `WARNING: listening on ${host} (not loopback) with authentication disabled: anyone who can reach this port can produce, consume and read the HTTP API. Set auth.enabled in the settings file (or TYO_MQ_AUTH_ENABLED=true), or bind to 127.0.0.1.`;
      process.stderr.write(`switchboard broker: ${warning}\n`);
      logger.warn({ host }, warning);
    }
    broker = createBroker(
      {
        ...fromFile,
        storage,
        http_api: httpApi,
        ...(fromFile.auth || auth.enabled ? { auth } : {}),
      },
      { logger, dataDir },
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    fail({ type: 'broker-fatal', code: 'SWB_ERR_VALIDATION', message }, BrokerExitCode.CONFIG);
  }

  try {
    const bound = await broker.listen(port, host);
    logger.info({ dataDir }, 'data directory');
    send({
      type: 'broker-ready',
      port: bound.port,
      host: bound.host,
      pid: process.pid,
      version: BROKER_VERSION,
    });
  } catch (err) {
    if (err instanceof SwitchboardError && err.code === 'SWB_ERR_PORT_IN_USE') {
      fail(
        { type: 'broker-fatal', code: 'SWB_ERR_PORT_IN_USE', message: err.message },
        BrokerExitCode.PORT_IN_USE,
      );
    }
    fail(
      { type: 'broker-fatal', code: 'SWB_ERR_INTERNAL', message: (err as Error).message },
      BrokerExitCode.CRASH,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(BrokerExitCode.OK);
    }
    stopping = true;
    logger.info({ signal }, 'stopping broker');
    const force = setTimeout(() => process.exit(BrokerExitCode.OK), 5_000);
    force.unref();
    broker.close().then(
      () => process.exit(BrokerExitCode.OK),
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(BrokerExitCode.CRASH);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // A supervisor that goes away without a signal must not leave an orphan broker behind.
  process.on('disconnect', () => stop('parent disconnected'));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(BrokerExitCode.CRASH);
  });
}

void main();
