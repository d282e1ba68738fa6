/**
 * `npm run console`: starts the local broker under a supervisor, serves the console UI and the
 * ConsoleApi on a loopback port, and prints its link and the broker's addresses on stdout
 * (startup-lines.ts):
 *
 *   Console: http://127.0.0.1:<port>/#token=<secret>
 *   Broker:  http://127.0.0.1:<broker port>
 *   MQTT:    mqtt://127.0.0.1:<mqtt port>      (absent with --broker-mqtt-port off)
 *
 * Everything else (pino JSON logs, build progress, errors) goes to stderr. Ctrl-C / SIGTERM stop
 * the broker and the host, then exit 0. Exit codes (`CliExitCode`, as `npm run broker`): 1 the
 * console or broker cannot run, 2 bad flags or configuration (settings, an unusable address),
 * 3 a port in use. Flags: see cli-flags.ts (`--help`).
 */
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { CliExitCode, LOG_LEVEL_ENV, SIGNAL_ECHO_MS } from '../../shared/cli-conventions';
import { SwitchboardError } from '../../shared/error-catalogue';
import { PortInUseError } from '../../shared/port-in-use-error';
import { createForkLauncher, forkLauncherOptionsFromEnv } from '../services/broker-launcher';
import { createLocalConsole, type LocalConsole } from '../services/local-console';
import { CONSOLE_HELP_HINT, parseConsoleFlags, USAGE, type ConsoleFlags } from './cli-flags';
import { ensureRendererBuilt, REPO_ROOT } from './renderer-build';
import { startupLines } from './startup-lines';
import { createWebHost, type WebHost } from './web-host';

function exitWith(code: CliExitCode, message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Errors of `listen()` that retrying cannot fix, mapped to an exit code and a hint. */
function listenFailure(
  error: unknown,
  flags: ConsoleFlags,
): { code: CliExitCode; message: string } {
  const errno = (error as NodeJS.ErrnoException).code;
  const where = `${flags.host}:${flags.port}`;
  if (errno === 'EADDRINUSE') {
    return {
      code: CliExitCode.PORT_IN_USE,
      message: `Console port ${flags.port} is already in use. Pick another with --port <n> (0 = any free port).`,
    };
  }
  if (
    errno === 'EADDRNOTAVAIL' ||
    errno === 'EACCES' ||
    errno === 'EPERM' ||
    errno === 'ENOTFOUND'
  ) {
    return {
      code: CliExitCode.CONFIG,
      message: `Cannot start the console on ${where} (${errno}). Use --host 127.0.0.1 and a port above 1023.`,
    };
  }
  return {
    code: CliExitCode.CRASH,
    message: `Could not start the console on ${where}: ${(error as Error).message}`,
  };
}

/** What `startBroker()` rejected with, mapped to an exit code and a hint. */
function brokerFailure(error: unknown): { code: CliExitCode; message: string } {
  const text = error instanceof Error ? error.message : String(error);
  const code = error instanceof SwitchboardError ? error.code : 'SWB_ERR_INTERNAL';
  if (code === 'SWB_ERR_PORT_IN_USE') {
    // Name the console's own flag for the listener that could not bind.
    const listener = error instanceof PortInUseError ? error.listener : 'socketio';
    const hint =
      listener === 'mqtt'
        ? 'Pick another with --broker-mqtt-port <n> (0 = any free port, off = no MQTT)'
        : listener === 'mqtt-ws'
          ? 'Set another mqtt.ws_port in the settings file (0 = any free port)'
          : 'Pick another with --broker-port <n> (0 = any free port)';
    return {
      code: CliExitCode.PORT_IN_USE,
      message: `Cannot start the local broker: ${text}. ${hint}.`,
    };
  }
  return {
    code: code === 'SWB_ERR_VALIDATION' ? CliExitCode.CONFIG : CliExitCode.CRASH,
    message: `Cannot start the local broker: ${text.replace(/\.$/, '')}.`,
  };
}

async function main(): Promise<void> {
  let flags: ConsoleFlags;
  try {
    flags = parseConsoleFlags(process.argv.slice(2));
  } catch (error) {
    exitWith(CliExitCode.CONFIG, `${(error as Error).message}\n${CONSOLE_HELP_HINT}`);
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return;
  }
  const logger = pino(
    { level: flags.logLevel, base: { component: 'console' } },
    pino.destination(2),
  );

  const staticDir = path.join(REPO_ROOT, 'renderer', 'dist');
  try {
    await ensureRendererBuilt({ outDir: staticDir, log: (message) => logger.info(message) });
  } catch (error) {
    exitWith(CliExitCode.CRASH, `Could not build the console UI: ${(error as Error).message}`);
  }

  const local = createLocalConsole({
    brokerPort: flags.brokerPort,
    brokerHost: flags.brokerHost,
    mqttPort: flags.brokerMqttPort ?? undefined,
    dataDir: flags.dataDir,
    settingsFile: flags.settings,
    // One log level for the console and the broker it starts.
    supervisor: { env: { ...process.env, [LOG_LEVEL_ENV]: flags.logLevel } },
    launcher: createForkLauncher(forkLauncherOptionsFromEnv(process.env)),
  });
  forwardBrokerLogs(local, logger);
  const host = createWebHost({
    service: local.service,
    staticDir,
    host: flags.host,
    port: flags.port,
    logger,
  });
  installSignalHandlers(host, local, logger);

  let address;
  try {
    address = await host.listen();
  } catch (error) {
    await local.close();
    const failure = listenFailure(error, flags);
    exitWith(failure.code, failure.message);
  }

  try {
    await local.startBroker();
  } catch (error) {
    await host.close();
    await local.close();
    const failure = brokerFailure(error);
    exitWith(failure.code, failure.message);
  }

  logger.info(
    { dataDir: flags.dataDir, broker: local.supervisor.endpoint(), ...mqttPorts(local) },
    'console ready',
  );
  // Clients and switchboard-admin need the broker's own addresses, not the console's.
  const lines = startupLines({
    consoleUrl: address.url,
    broker: local.supervisor.endpoint(),
    mqttPort: local.supervisor.status().mqttPort,
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Broker output is kept in the supervisor's ring buffer; warnings and errors are also logged. */
function forwardBrokerLogs(local: LocalConsole, logger: Logger): void {
  local.supervisor.onLog(({ line }) => {
    // pino lines start with their level; lines cut to 8 KiB are no longer valid JSON.
    const match = /^\{"level":(\d+)/.exec(line);
    // Not pino output: most likely a crash trace.
    const level = match ? Number(match[1]) : 50;
    if (level >= 40) logger.warn({ broker: line }, 'broker log');
  });
  local.supervisor.onStatus((status) => {
    logger.info(
      {
        state: status.state,
        port: status.port,
        mqttPort: status.mqttPort,
        mqttWsPort: status.mqttWsPort,
        pid: status.pid,
        lastError: status.lastError,
      },
      'local broker',
    );
  });
}

/** The local broker's MQTT ports for the startup log, beside its socket.io endpoint: with
 * `--broker-mqtt-port 0` this is where to find the port that was chosen. */
function mqttPorts(local: LocalConsole): { mqttPort: number | null; mqttWsPort: number | null } {
  const { mqttPort, mqttWsPort } = local.supervisor.status();
  return { mqttPort, mqttWsPort };
}

function installSignalHandlers(host: WebHost, local: LocalConsole, logger: Logger): void {
  let stoppingSince: number | null = null;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stoppingSince !== null) {
      // One Ctrl-C delivered twice under `npm run` (see SIGNAL_ECHO_MS).
      if (Date.now() - stoppingSince < SIGNAL_ECHO_MS) return;
      exitWith(CliExitCode.OK, `Received ${signal} again: exiting without waiting for the broker.`);
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'stopping console');
    void Promise.allSettled([host.close(), local.close()]).then(() => process.exit(CliExitCode.OK));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  exitWith(
    CliExitCode.CRASH,
    `Console failed: ${error instanceof Error ? error.message : String(error)}`,
  );
});
