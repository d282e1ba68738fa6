/**
 * Flags of `npm run console` (electron/web/cli.ts), parsed with `node:util` and validated with
 * zod. Conventions shared with `npm run broker` (`shared/cli-conventions.ts`): `--help` on stdout
 * with the defaults, exit 0; `--log-level` / `SWITCHBOARD_LOG_LEVEL`; the same exit codes.
 *
 * `--host` accepts loopback addresses only: the console's secret would otherwise cross the
 * network in plain HTTP (there is no TLS), and whoever holds it controls the local broker.
 * Reach a console on another machine through an SSH tunnel instead.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  CONSOLE_DATA_DIR_ENV,
  CONSOLE_DATA_DIR_UNDER_HOME,
} from '../../shared/console-secrets-file';
import { isLoopbackHost } from '../../shared/loopback';
import {
  envLogLevel,
  envLogLevelName,
  EXIT_CODES_HELP,
  isLogLevel,
  LOG_LEVEL_ENV,
  LOG_LEVELS,
} from '../../shared/cli-conventions';
import { Protocol } from '../../shared/protocol-events';

export const DEFAULT_CONSOLE_PORT = 17353;
/** Default MQTT port of the console's local broker (MQTT's standard port; docs/mqtt.md). */
export const DEFAULT_LOCAL_MQTT_PORT = 1883;

/** Default per-user data directory of the local broker. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env[CONSOLE_DATA_DIR_ENV] || path.join(os.homedir(), ...CONSOLE_DATA_DIR_UNDER_HOME);
}

const Port = z.coerce.number().int().min(0).max(65_535);

const FlagsSchema = z
  .object({
    port: Port.default(DEFAULT_CONSOLE_PORT),
    host: z.string().min(1).default('127.0.0.1').refine(isLoopbackHost, {
      message:
        'the console listens on loopback only (127.0.0.1, ::1 or localhost): its access token would cross the network in plain HTTP. From another machine, use an SSH tunnel: ssh -L 17353:127.0.0.1:17353 <this machine>',
    }),
    brokerPort: Port.default(Protocol.DEFAULT_PORT),
    brokerHost: z.string().min(1).default('127.0.0.1'),
    /** null = the local broker serves no MQTT (`--broker-mqtt-port off`). */
    brokerMqttPort: z
      .union([z.literal('off').transform(() => null), Port])
      .default(DEFAULT_LOCAL_MQTT_PORT),
    dataDir: z.string().min(1).optional(),
    settings: z.string().min(1).optional(),
    logLevel: z
      .string()
      .refine(isLogLevel, { message: `use one of ${LOG_LEVELS.join(', ')}` })
      .optional(),
    help: z.boolean().default(false),
  })
  .strict();
export type ConsoleFlags = z.infer<typeof FlagsSchema> & { dataDir: string; logLevel: string };

export const USAGE = `Usage: npm run console -- [options]

Starts a local broker, serves the Switchboard console for your browser on this machine, and
prints on stdout its link (Console: http://127.0.0.1:<port>/#token=<secret>), the broker's
address (Broker: http://…) and, unless --broker-mqtt-port off, its MQTT address (MQTT: mqtt://…).

Options:
  --port <n>           console port; 0 = any free port
                         (default: ${DEFAULT_CONSOLE_PORT})
  --host <h>           console address, loopback only (127.0.0.1, ::1, localhost)
                         (default: 127.0.0.1)
  --broker-port <n>    local broker port; 0 = any free port
                         (default: ${Protocol.DEFAULT_PORT})
  --broker-host <h>    local broker address; 0.0.0.0 = every interface (authentication is on)
                         (default: 127.0.0.1)
  --broker-mqtt-port <n|off>
                       local broker's MQTT (TCP) port, same address; 0 = any free port,
                         off = no MQTT; see docs/mqtt.md (default: ${DEFAULT_LOCAL_MQTT_PORT})
  --data-dir <dir>     local broker data directory
                         (default: $SWITCHBOARD_DATA_DIR, else ~/.switchboard/data)
  --settings <file>    broker settings file (JSON), passed to the broker
                         (default: <data-dir>/settings.json, created on first start)
  --log-level <level>  ${LOG_LEVELS.join(' | ')}; also the broker's
                         (default: $${LOG_LEVEL_ENV}, else info)
  -h, --help           show this help and exit

Logs: JSON lines (pino) on stderr. Ctrl-C / SIGTERM stop the broker, then the console.
${EXIT_CODES_HELP}
`;

/** Printed after a usage error. */
export const CONSOLE_HELP_HINT = "Run 'npm run console -- --help' for the options.";

/** Parses argv (without node and script). Throws an Error with a user-facing message. */
export function parseConsoleFlags(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): ConsoleFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'broker-port': { type: 'string' },
        'broker-host': { type: 'string' },
        'broker-mqtt-port': { type: 'string' },
        'data-dir': { type: 'string' },
        settings: { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new Error((error as Error).message);
  }
  if (values.help) {
    return { ...FlagsSchema.parse({}), help: true, dataDir: defaultDataDir(env), logLevel: 'info' };
  }
  const fromEnv = values['log-level'] === undefined ? envLogLevel(env) : undefined;
  const parsed = FlagsSchema.safeParse({
    port: values.port,
    host: values.host,
    brokerPort: values['broker-port'],
    brokerHost: values['broker-host'],
    brokerMqttPort: values['broker-mqtt-port'],
    dataDir: values['data-dir'],
    settings: values.settings,
    logLevel: values['log-level'] ?? fromEnv,
    help: values.help,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (key === 'logLevel') {
      const source = fromEnv !== undefined ? envLogLevelName(env) : flag;
      throw new Error(
        `Invalid ${source} ${fromEnv ?? String(values['log-level'])}: ${issue?.message}`,
      );
    }
    if (key === 'port' || key === 'brokerPort' || key === 'brokerMqttPort') {
      const off = key === 'brokerMqttPort' ? ', off = no MQTT' : '';
      throw new Error(
        `Invalid ${flag} ${String(values[flag.slice(2)])}: use 0-65535 (0 = any free port${off})`,
      );
    }
    throw new Error(`Invalid ${flag}: ${issue?.message ?? 'invalid value'}`);
  }
  return {
    ...parsed.data,
    dataDir: path.resolve(parsed.data.dataDir ?? defaultDataDir(env)),
    logLevel: parsed.data.logLevel ?? 'info',
  };
}
