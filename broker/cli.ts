/**
 * The headless broker: `npm run broker -- [--port <n>] [--host <h>] [--data-dir <dir>]
 * [--settings <file>] [--auth-store [file]] [--storage sqlite|memory] [--no-http-api]
 * [--log-level <level>]`.
 *
 * Embedded defaults: port 17352 (`--port`, else `TYO_MQ_PORT`, `spec/protocol-admin.md` §13
 * Note), host 127.0.0.1 (`--host 0.0.0.0` to accept other machines), data directory `./.data` holding the SQLite message store
 * `tyo-mq.sqlite` (`--storage memory` keeps copies in memory), and the HTTP API (`/health`,
 * `/api/metrics`, `/api/stats`) switched on, so the console can read this broker over the
 * wire. A settings file (`--settings`, else `TYO_MQ_SETTINGS_FILE`) overrides the defaults; it
 * is created when missing, watched, reloaded on SIGHUP and receives runtime changes (§12.3).
 * The env file (`TYO_MQ_ENV_FILE`, else `.env`) is loaded first; the other `TYO_MQ_*`
 * variables are listed in `config/env-settings.ts` (§13).
 *
 * Exit codes (`BrokerExitCode`): 0 after SIGINT/SIGTERM, 2 bad flags or settings, 3 port
 * taken, 1 crash. When forked with an IPC channel it reports `broker-ready` / `broker-fatal`.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BrokerExitCode, type BrokerProcessMessage } from '../shared/broker-process';
import { SwitchboardError } from '../shared/error-catalogue';
import { loadEnvFile } from './config/env-file';
import {
  envFilePath,
  normalizeAuthStoreArg,
  parseAuthStoreValue,
  resolvePort,
  settingsFilePath,
} from './config/env-settings';
import { createBroker, type Broker } from './index';
import { createLogger } from './logging/logger';
import { BROKER_VERSION } from './version';

const USAGE =
  'Usage: npm run broker -- [--port <n>] [--host <h>] [--data-dir <dir>] [--settings <file>] [--auth-store [file]] [--storage sqlite|memory] [--no-http-api] [--log-level <level>]';

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
      args: normalizeAuthStoreArg(process.argv.slice(2)),
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        settings: { type: 'string' },
        'auth-store': { type: 'string' },
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

async function main(): Promise<void> {
  const flags = parseFlags();
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  try {
    // §13: the env file comes first, never overriding variables already set.
    loadEnvFile(envFilePath(process.env));
  } catch (err) {
    const message = `Cannot read env file: ${(err as Error).message}`;
    fail({ type: 'broker-fatal', code: 'SWB_ERR_VALIDATION', message }, BrokerExitCode.CONFIG);
  }
  const resolved = resolvePort(flags.port, process.env);
  if ('error' in resolved) {
    fail(
      { type: 'broker-fatal', code: 'SWB_ERR_VALIDATION', message: resolved.error },
      BrokerExitCode.CONFIG,
    );
  }
  const port = resolved.port;
  // Loopback by default: this build has no authentication yet, so exposing the broker (and its
  // HTTP API) to the network must be a deliberate `--host 0.0.0.0`.
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
    // Embedded defaults (under the settings file): SQLite in the data directory, HTTP API on.
    const defaults = { storage: 'sqlite', http_api: { enabled: true } };
    const overrides = {
      storage: flags.storage,
      http_api: flags['no-http-api'] ? { enabled: false } : undefined,
      auth_store: parseAuthStoreValue(flags['auth-store']),
    };
    broker = createBroker(defaults, {
      logger,
      dataDir,
      settingsFile: settingsFilePath(flags.settings, process.env),
      settingsOverrides: overrides,
    });
    // Fail closed: a settings file that turns authentication on must not run open.
    if (broker.auth.enabled) {
      await broker.close();
      throw new Error(
        'Authentication (auth.enabled / TYO_MQ_AUTH_ENABLED) is not implemented in this build; refusing to start an open broker. Remove it to run without authentication.',
      );
    }
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
  // §12.3: SIGHUP reloads the settings file (an invalid file is logged and ignored).
  process.on('SIGHUP', () => {
    broker.reloadSettings().catch((err: unknown) => {
      logger.warn({ err: (err as Error).message }, 'settings not reloaded');
    });
  });
  // A supervisor that goes away without a signal must not leave an orphan broker behind.
  process.on('disconnect', () => stop('parent disconnected'));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(BrokerExitCode.CRASH);
  });
}

void main();
