/**
 * `npm run console`: starts the local broker under a supervisor, serves the console UI and the
 * ConsoleApi on a loopback port, and prints exactly one line on stdout:
 *
 *   Console: http://127.0.0.1:<port>/#token=<secret>
 *
 * Everything else (pino JSON logs, build progress, errors) goes to stderr. Ctrl-C / SIGTERM stop
 * the broker and the host, then exit 0. Exit 1 when the console or broker cannot start (e.g. a
 * taken port), 2 for bad flags. Flags: see cli-flags.ts.
 */
import path from 'node:path';
import { pino } from 'pino';
import { SwitchboardError } from '../../shared/error-catalogue';
import { createLocalConsole, type LocalConsole } from '../services/local-console';
import { parseConsoleFlags, USAGE, type ConsoleFlags } from './cli-flags';
import { ensureRendererBuilt, REPO_ROOT } from './renderer-build';
import { createWebHost, type WebHost } from './web-host';

const logger = pino(
  { level: process.env.SWITCHBOARD_LOG_LEVEL ?? 'info', base: { component: 'console' } },
  pino.destination(2),
);

function exitWith(code: number, message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let flags: ConsoleFlags;
  try {
    flags = parseConsoleFlags(process.argv.slice(2));
  } catch (error) {
    exitWith(2, `${(error as Error).message}\n\n${USAGE}`);
  }
  if (flags.help) {
    process.stderr.write(USAGE);
    return;
  }

  if (!['127.0.0.1', 'localhost', '::1'].includes(flags.host)) {
    // The secret still guards every call, but it would cross the network in clear HTTP.
    logger.warn({ host: flags.host }, 'console reachable beyond this machine over plain HTTP');
  }
  const staticDir = path.join(REPO_ROOT, 'renderer', 'dist');
  try {
    await ensureRendererBuilt({ outDir: staticDir, log: (message) => logger.info(message) });
  } catch (error) {
    exitWith(1, `Could not build the console UI: ${(error as Error).message}`);
  }

  const local = createLocalConsole({
    brokerPort: flags.brokerPort,
    brokerHost: flags.brokerHost,
    dataDir: flags.dataDir,
    settingsFile: flags.settings,
  });
  forwardBrokerLogs(local);
  const host = createWebHost({
    service: local.service,
    staticDir,
    host: flags.host,
    port: flags.port,
    logger,
  });
  installSignalHandlers(host, local);

  let address;
  try {
    address = await host.listen();
  } catch (error) {
    await local.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      exitWith(
        1,
        `Console port ${flags.port} is already in use. Pick another with --port <n> (0 = any free port).`,
      );
    }
    exitWith(
      1,
      `Could not start the console on ${flags.host}:${flags.port}: ${(error as Error).message}`,
    );
  }

  try {
    await local.startBroker();
  } catch (error) {
    await host.close();
    await local.close();
    const message = error instanceof SwitchboardError ? error.message : String(error);
    const hint =
      error instanceof SwitchboardError && error.code === 'SWB_ERR_PORT_IN_USE'
        ? ' Pick another with --broker-port <n> (0 = any free port).'
        : '';
    exitWith(1, `Cannot start the local broker: ${message}.${hint}`);
  }

  logger.info({ dataDir: flags.dataDir, broker: local.supervisor.endpoint() }, 'console ready');
  process.stdout.write(`Console: ${address.url}\n`);
}

/** Broker output is kept in the supervisor's ring buffer; warnings and errors are also logged. */
function forwardBrokerLogs(local: LocalConsole): void {
  local.supervisor.onLog(({ line }) => {
    let level = 0;
    try {
      level = Number((JSON.parse(line) as { level?: unknown }).level) || 0;
    } catch {
      level = 50; // Not pino output: most likely a crash trace.
    }
    if (level >= 40) logger.warn({ broker: line }, 'broker log');
  });
  local.supervisor.onStatus((status) => {
    logger.info(
      { state: status.state, port: status.port, pid: status.pid, lastError: status.lastError },
      'local broker',
    );
  });
}

function installSignalHandlers(host: WebHost, local: LocalConsole): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      exitWith(130, `Received ${signal} again: exiting without waiting for the broker.`);
    }
    stopping = true;
    logger.info({ signal }, 'stopping console');
    void Promise.allSettled([host.close(), local.close()]).then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  exitWith(1, `Console failed: ${error instanceof Error ? error.message : String(error)}`);
});
