/**
 * The headless broker: `switchboard-broker [options]` (`npm run broker -- [options]` from a
 * clone; see `--help`, broker/cli-flags.ts).
 *
 * Embedded defaults: port 17352 (`--port`, else `TYO_MQ_PORT`, `spec/protocol-admin.md` §13
 * Note), host 127.0.0.1 (`--host 0.0.0.0` to accept other machines), data directory `./.data`
 * holding the SQLite message store `tyo-mq.sqlite` (`--storage memory` keeps copies in memory),
 * and the HTTP API (`/health`, `/api/metrics`, `/api/stats`) switched on, so the console can read
 * this broker over the wire. A settings file (`--settings`, else `TYO_MQ_SETTINGS_FILE`)
 * overrides the defaults.
 *
 * SIGINT/SIGTERM drain it (`Broker.drain()`, docs/http-api.md "Drain"): `/ready` answers 503 at
 * once, new connections are accepted for `shutdown.grace_ms`, then refused while the work in
 * progress finishes and the store is closed; the process exits at `grace_ms + timeout_ms` at
 * the latest. A second signal (past `SIGNAL_ECHO_MS`) exits at once.
 *
 * Exit codes (`BrokerExitCode`): 0 after SIGINT/SIGTERM (or when its supervisor went away),
 * 1 runtime failure, 2 bad flags, settings or an address that cannot be used (EADDRNOTAVAIL,
 * EACCES…), 3 port taken. When forked with an IPC channel it reports `broker-ready` /
 * `broker-fatal`, and exits as soon as its parent is gone (broker/parent-watch.ts).
 */
import { resolve } from 'node:path';
import {
  BrokerExitCode,
  type BrokerFatalMessage,
  type BrokerProcessMessage,
} from '../shared/broker-process';
import { SIGNAL_ECHO_MS, type CliExitCode } from '../shared/cli-conventions';
import { MAX_TIMER_DELAY_MS } from '../shared/duration';
import { SwitchboardError } from '../shared/error-catalogue';
import { isLoopbackHost } from '../shared/loopback';
import { PortInUseError } from '../shared/port-in-use-error';
import {
  BROKER_HELP_HINT,
  BROKER_USAGE,
  parseBrokerFlags,
  UsageError,
  type BrokerFlags,
} from './cli-flags';
import { CLI_DEFAULTS, flagOverrides } from './cli-layers';
import { printOrCheckConfig } from './cli-config';
import { loadEnvFile } from './files/env-file';
import { resolveFileVariables, type EnvSource } from './config/env-mapping';
import { envFilePath } from './files/env-settings';
import { ensurePrivateDir } from './files/private-files';
import { createBroker, type Broker } from './index';
import { createLogger, stdoutLogDestination, type Logger } from './logging/logger';
import { cycleLogLevelOnSignal } from './logging/log-level-cycle';
import { isSupervised, watchParent } from './parent-watch';
import { BROKER_VERSION, versionLine } from './version';
import { volatileAuthWarning } from './volatile-auth-warning';

// A closed stderr (the reader is gone) must not turn a message into an uncaught exception.
process.stderr.on('error', () => undefined);

function send(message: BrokerProcessMessage): void {
  // A closed channel must not raise an 'error' event; the parent watch handles a gone parent.
  if (process.connected === false) return;
  try {
    process.send?.(message, undefined, {}, () => undefined);
  } catch {
    // Channel closed between the check and the send.
  }
}

function fail(fatal: Omit<BrokerFatalMessage, 'type'>, exitCode: CliExitCode): never {
  process.stderr.write(`switchboard broker: ${fatal.message}\n`);
  send({ type: 'broker-fatal', ...fatal });
  process.exit(exitCode);
}

/** Errors of `listen()` that a restart cannot fix, with what to tell the user. */
function unusableAddress(err: unknown, host: string, port: number): string | null {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRNOTAVAIL':
      return `Cannot listen on ${where}: ${host} is not an address of this machine (EADDRNOTAVAIL). Use --host 127.0.0.1, 0.0.0.0 or one of this machine's addresses.`;
    case 'EACCES':
    case 'EPERM':
      return `Cannot listen on ${where}: permission denied (${code}). Ports below 1024 need privileges; pick another port.`;
    case 'ENOTFOUND':
      return `Cannot listen on ${where}: the host name ${host} does not resolve (ENOTFOUND).`;
    case 'EAFNOSUPPORT':
    case 'EINVAL':
      return `Cannot listen on ${where}: not a usable address (${code}).`;
    default:
      return null;
  }
}

/** Builds the broker from flags, the settings file and `TYO_MQ_*`; exits `CONFIG` on bad settings. */
async function build(flags: BrokerFlags, logger: Logger): Promise<Broker> {
  const dataDir = resolve(flags.dataDir);
  try {
    // Messages, tokens and keys live here: owner only (an older version's 0755 is tightened).
    const restricted = ensurePrivateDir(dataDir);
    if (restricted) {
      logger.warn(
        { dataDir, was: restricted.was, now: '700' },
        'data directory was accessible to other users; restricted to 0700',
      );
    }
    // Embedded defaults (under the settings file): SQLite in the data directory, HTTP API on.
    const broker = createBroker(CLI_DEFAULTS, {
      logger,
      dataDir,
      settingsFile: flags.settings,
      settingsOverrides: flagOverrides(flags),
    });
    if (!broker.auth.enabled && !isLoopbackHost(flags.host)) {
      const warning = `WARNING: listening on ${flags.host} (not loopback) with authentication disabled: anyone who can reach this port can produce, consume and read the HTTP API. Start with --auth (or set auth.enabled in the settings file, or TYO_MQ_AUTH_ENABLED=true), or bind to 127.0.0.1.`;
      process.stderr.write(`switchboard broker: ${warning}\n`);
      logger.warn({ host: flags.host }, warning);
    }
    const volatile = volatileAuthWarning({ broker, settingsFile: flags.settings, dataDir });
    if (volatile) logger.warn(volatile);
    return broker;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return fail({ code: 'SWB_ERR_VALIDATION', message }, BrokerExitCode.CONFIG);
  }
}

async function main(): Promise<void> {
  try {
    // §5, §13: the env file (TYO_MQ_ENV_FILE, else .env) comes first, never overriding
    // variables already set.
    loadEnvFile(envFilePath(process.env));
  } catch (err) {
    const message = `Cannot read env file: ${(err as Error).message}`;
    fail({ code: 'SWB_ERR_VALIDATION', message }, BrokerExitCode.CONFIG);
  }
  // Container secrets: <NAME>_FILE holds <NAME>'s value (docs/configuration.md).
  let fileSources = new Map<string, EnvSource>();
  try {
    fileSources = resolveFileVariables(process.env);
  } catch (err) {
    fail({ code: 'SWB_ERR_VALIDATION', message: (err as Error).message }, BrokerExitCode.CONFIG);
  }
  let flags: BrokerFlags;
  try {
    flags = parseBrokerFlags(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    fail(
      { code: 'SWB_ERR_VALIDATION', message: `${err.message}\n${BROKER_HELP_HINT}` },
      BrokerExitCode.CONFIG,
    );
  }
  if (flags.help) {
    process.stdout.write(BROKER_USAGE);
    return;
  }
  if (flags.version) {
    process.stdout.write(`${versionLine('switchboard-broker')}\n`);
    return;
  }
  if (flags.printConfig || flags.checkConfig) {
    process.exitCode = printOrCheckConfig(flags, process.env, fileSources);
    return;
  }
  const logger = createLogger({ level: flags.logLevel, format: flags.logFormat });
  cycleLogLevelOnSignal(logger);

  // Installed before anything slow, so a signal or a vanished parent is honoured at any moment.
  let broker: Broker | null = null;
  let starting: Promise<unknown> | null = null;
  let stopping = false;
  let stoppingSince = 0;
  const stop = (reason: string): void => {
    if (stopping) {
      // One Ctrl-C delivered twice under `npm run` (see SIGNAL_ECHO_MS) is not "exit now".
      if (reason.startsWith('SIG') && Date.now() - stoppingSince < SIGNAL_ECHO_MS) return;
      logger.warn({ reason }, 'asked to stop again: exiting now');
      process.exit(BrokerExitCode.OK);
    }
    stopping = true;
    stoppingSince = Date.now();
    const current = broker;
    if (!current) {
      logger.info({ reason }, 'stopping broker');
      process.exit(BrokerExitCode.OK);
    }
    // The drain logs its start and its end (with counts); this bounds it whatever happens.
    const { grace_ms, timeout_ms } = current.settings.shutdown;
    // Not serving yet: no load balancer can be sending clients, so no grace.
    const graceMs = current.status().listening ? grace_ms : 0;
    const bound = Math.min(graceMs + timeout_ms, MAX_TIMER_DELAY_MS);
    setTimeout(() => process.exit(BrokerExitCode.OK), bound).unref();
    // Let a listen() in flight settle first, so the drain sees the server it must close.
    void Promise.resolve(starting)
      .catch(() => undefined)
      .then(() => current.drain({ reason, graceMs, timeoutMs: timeout_ms }))
      .then(
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
    broker?.reloadSettings().catch((err: unknown) => {
      logger.warn({ err: (err as Error).message }, 'settings not reloaded');
    });
  });
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(BrokerExitCode.CRASH);
  });
  watchParent((reason) => stop(reason));
  // Supervised, our logs are the supervisor's to read: a closed pipe means it is gone.
  if (isSupervised()) stdoutLogDestination().onClosed(() => stop('log pipe closed'));
  if (stopping) return;

  broker = await build(flags, logger);
  if (stopping) return;
  starting = broker.listen(flags.port, flags.host);
  try {
    const bound = (await starting) as { port: number; host: string };
    if (stopping) return;
    logger.info({ dataDir: resolve(flags.dataDir) }, 'data directory');
    const { mqttPort, mqttWsPort } = broker.status();
    send({
      type: 'broker-ready',
      port: bound.port,
      host: bound.host,
      pid: process.pid,
      version: BROKER_VERSION,
      mqttPort,
      mqttWsPort,
    });
  } catch (err) {
    if (stopping) return;
    if (err instanceof SwitchboardError && err.code === 'SWB_ERR_PORT_IN_USE') {
      // Which listener and port, so a supervisor can name its own flag for it.
      const where = err instanceof PortInUseError ? { listener: err.listener, port: err.port } : {};
      fail(
        { code: 'SWB_ERR_PORT_IN_USE', message: err.message, ...where },
        BrokerExitCode.PORT_IN_USE,
      );
    }
    const unusable = unusableAddress(err, flags.host, flags.port);
    if (unusable) fail({ code: 'SWB_ERR_VALIDATION', message: unusable }, BrokerExitCode.CONFIG);
    fail({ code: 'SWB_ERR_INTERNAL', message: (err as Error).message }, BrokerExitCode.CRASH);
  }
}

void main();
