/**
 * Flags and help of the headless broker (`switchboard-broker`; `npm run broker` from a clone;
 * broker/cli.ts). Same conventions as
 * the console's CLI (electron/web/cli-flags.ts): `--help` on stdout with the defaults, exit 0;
 * `--log-level` / `SWITCHBOARD_LOG_LEVEL` (older `SWB_LOG_LEVEL` still read); exit codes from
 * `BrokerExitCode` (0 ok, 1 runtime failure, 2 bad usage or settings, 3 port in use).
 */
import { parseArgs } from 'node:util';
import {
  envLogLevel,
  envLogLevelName,
  EXIT_CODES_HELP,
  isLogLevel,
  LOG_LEVEL_ENV,
  LOG_LEVELS,
} from '../shared/cli-conventions';
import { Protocol } from '../shared/protocol-events';
import { isRedisUrl } from './storage/redis-options';
import {
  normalizeAuthStoreArg,
  parseAuthStoreValue,
  settingsFilePath,
  type AuthStoreChoice,
} from './files/env-settings';

/** Log line formats of `--log-format`. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
/** The variable `--log-format` falls back to. */
export const LOG_FORMAT_ENV = 'TYO_MQ_LOG_FORMAT';

export const BROKER_USAGE = `Usage: switchboard-broker [options]
       (from a clone of the repository: npm run broker -- [options])

Runs the Switchboard broker alone: the tyo-mq protocol (socket.io) and its HTTP API on one port.

Options:
  --port <n>           port to listen on; 0 = any free port
                         (default: $TYO_MQ_PORT, else ${Protocol.DEFAULT_PORT})
  --host <h>           address to bind; 0.0.0.0 = every interface (enable auth first!)
                         (default: 127.0.0.1)
  --data-dir <dir>     data directory, holds the SQLite store tyo-mq.sqlite
                         (default: ./.data)
  --settings <file>    settings file (JSON)
                         (default: $TYO_MQ_SETTINGS_FILE, else none)
  --auth               turn authentication on (the same as TYO_MQ_AUTH_ENABLED=true, or
                         auth.enabled: true in the settings file); see "Authentication" below
                         (default: the settings file's auth.enabled, else off)
  --auth-store [file]  keep realms and tokens in a SQLite auth store
                         (default: $TYO_MQ_AUTH_STORE, else the settings file's auth_store)
  --storage <kind>     sqlite | memory | redis (redis: storage_options.url of the settings file)
                         (default: the settings file's storage, else sqlite)
  --no-http-api        do not serve /health and /api/*
                         (default: served)
  --mqtt-port <n|off>  also serve MQTT (3.1.1 and 5) on this port (0 = any free port), or
                         off; see docs/mqtt.md (default: the settings file's mqtt block, else off)
  --cluster <url>      join the cluster of the nodes sharing this Redis (redis:// or
                         rediss:// URL); see docs/cluster.md
                         (default: the settings file's cluster block, else not clustered)
  --node-id <id>       this node's id in the cluster (letters, digits, _ . : -)
                         (default: the settings file's, else 16 random hex characters kept
                         in <data-dir>/cluster-node-id)
  --log-level <level>  ${LOG_LEVELS.join(' | ')}; SIGUSR2 cycles it at run time
                         (default: $${LOG_LEVEL_ENV}, else info)
  --log-format <f>     json (one JSON object a line) | pretty (for a terminal)
                         (default: $${LOG_FORMAT_ENV}, else json)
  --print-config       print the effective configuration (secrets redacted) and where each
                         value came from, then exit
  --check-config       validate flags, settings file and TYO_MQ_* variables; exit 0 when
                         valid, 2 with the errors otherwise
  --version            print the version and the build commit, and exit
  -h, --help           show this help and exit

Authentication is off by default: any client may produce and consume, and the HTTP API is
open (on 127.0.0.1 only unless --host says otherwise). Turn it on with --auth,
TYO_MQ_AUTH_ENABLED=true or auth.enabled in the settings file. With auth on and no admin token
configured, one is generated at start and appended to the env file ($TYO_MQ_ENV_FILE, else
./.env) as TYO_MQ_ADMIN_TOKEN="..."; switchboard-admin (npm run admin from a clone) reads it
from there.
Realms, tokens and keys: docs/configuration.md, "Authentication".

Every setting also has a TYO_MQ_* variable, and <NAME>_FILE reads <NAME> from a file:
docs/configuration.md, "Environment variables".

Logs: JSON lines (pino) on stdout. Ctrl-C / SIGTERM drain it: /ready answers 503 at once, new
connections are still accepted for shutdown.grace_ms (default 0), then the work in progress
finishes and it exits 0 within shutdown.timeout_ms (default 10 s) more; a second signal exits
at once. Liveness: GET /health; readiness: GET /ready (docs/http-api.md).
${EXIT_CODES_HELP}
`;

/** Printed after a usage error. */
export const BROKER_HELP_HINT = "Run 'switchboard-broker --help' for the options.";

export interface BrokerFlags {
  port: number;
  host: string;
  dataDir: string;
  settings: string | undefined;
  storage: 'sqlite' | 'memory' | 'redis' | undefined;
  /** `--auth`: authentication on (an override of `auth.enabled`); false = settings decide. */
  auth: boolean;
  /** `--auth-store [file]`: true (default file), a path, false, or unset. */
  authStore: AuthStoreChoice | undefined;
  httpApi: boolean;
  /**
   * `--mqtt-port <n|off>`: enables the MQTT listener on that port, or `'off'` turns it off even
   * when the settings file enables it; undefined = settings decide.
   */
  mqttPort: number | 'off' | undefined;
  /** `--cluster <url>`: enables clustering over this Redis; undefined = settings decide. */
  cluster: string | undefined;
  /** `--node-id <id>`: the cluster node id; undefined = settings decide. */
  nodeId: string | undefined;
  logLevel: string;
  /** `--log-format`: `json` (default) or `pretty`. */
  logFormat: LogFormat;
  printConfig: boolean;
  checkConfig: boolean;
  help: boolean;
  /** `--version`: print `versionLine()` and exit 0. */
  version: boolean;
}

/** A flag or value the CLI cannot use; the message is for the user (exit `CONFIG`). */
export class UsageError extends Error {}

/** Parses argv (without node and script); throws `UsageError` with a user-facing message. */
export function parseBrokerFlags(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): BrokerFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: normalizeAuthStoreArg(argv),
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        settings: { type: 'string' },
        auth: { type: 'boolean' },
        'auth-store': { type: 'string' },
        'no-http-api': { type: 'boolean' },
        'mqtt-port': { type: 'string' },
        cluster: { type: 'string' },
        'node-id': { type: 'string' },
        storage: { type: 'string' },
        'log-level': { type: 'string' },
        'log-format': { type: 'string' },
        'print-config': { type: 'boolean' },
        'check-config': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const help = values.help ?? false;
  const portText = values.port ?? env.TYO_MQ_PORT ?? String(Protocol.DEFAULT_PORT);
  const port = Number(portText);
  if (!help && (portText.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535)) {
    const source = values.port !== undefined ? '--port' : 'TYO_MQ_PORT';
    throw new UsageError(`Invalid ${source} ${portText}: use 0-65535 (0 = any free port)`);
  }
  const mqttText = values['mqtt-port'];
  const mqttOff = mqttText?.trim().toLowerCase() === 'off';
  const mqttPort = mqttText === undefined ? undefined : mqttOff ? 'off' : Number(mqttText);
  if (
    !help &&
    typeof mqttPort === 'number' &&
    (mqttText!.trim() === '' || !Number.isInteger(mqttPort) || mqttPort < 0 || mqttPort > 65535)
  ) {
    throw new UsageError(`Invalid --mqtt-port ${mqttText}: use 0-65535 (0 = any free port) or off`);
  }
  const cluster = values.cluster;
  if (!help && cluster !== undefined && !isRedisUrl(cluster)) {
    throw new UsageError(`Invalid --cluster ${cluster}: use a redis:// or rediss:// URL`);
  }
  const nodeId = values['node-id'];
  if (!help && nodeId !== undefined && !/^[\w.:-]{1,128}$/.test(nodeId)) {
    throw new UsageError(`Invalid --node-id ${nodeId}: use 1-128 letters, digits, _ . : -`);
  }
  const storage = values.storage;
  if (!help && storage !== undefined && !['sqlite', 'memory', 'redis'].includes(storage)) {
    throw new UsageError(`Invalid --storage ${storage}: use sqlite, memory or redis`);
  }
  const logLevel = values['log-level'] ?? envLogLevel(env) ?? 'info';
  if (!help && !isLogLevel(logLevel)) {
    const source = values['log-level'] !== undefined ? '--log-level' : envLogLevelName(env);
    throw new UsageError(`Invalid ${source} ${logLevel}: use one of ${LOG_LEVELS.join(', ')}`);
  }
  const logFormat = values['log-format'] ?? env[LOG_FORMAT_ENV] ?? 'json';
  if (!help && !(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    const source = values['log-format'] !== undefined ? '--log-format' : LOG_FORMAT_ENV;
    throw new UsageError(`Invalid ${source} ${logFormat}: use json or pretty`);
  }
  if (!help && values.host !== undefined && values.host.trim() === '') {
    throw new UsageError('Invalid --host: empty');
  }
  return {
    port,
    // Loopback by default: exposing the broker (and its HTTP API) to the network must be a
    // deliberate `--host 0.0.0.0`, warned about when authentication is off.
    host: values.host ?? '127.0.0.1',
    dataDir: values['data-dir'] ?? '.data',
    settings: settingsFilePath(values.settings, env),
    auth: values.auth ?? false,
    authStore: parseAuthStoreValue(values['auth-store']),
    storage: storage as BrokerFlags['storage'],
    httpApi: !values['no-http-api'],
    mqttPort,
    cluster,
    nodeId,
    logLevel,
    logFormat: logFormat as LogFormat,
    printConfig: values['print-config'] ?? false,
    checkConfig: values['check-config'] ?? false,
    help,
    version: values.version ?? false,
  };
}
