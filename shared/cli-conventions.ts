/**
 * Conventions shared by both command lines, `npm run broker` (broker/cli.ts) and
 * `npm run console` (electron/web/cli.ts): exit codes, log levels and the variable that sets
 * them. `--help` prints the usage with defaults on stdout and exits 0 in both.
 */

/** Exit codes of both CLIs. A supervisor restarts a broker only after `CRASH` (or a signal). */
export const CliExitCode = {
  /** Stopped normally (Ctrl-C / SIGTERM; or `--help`). */
  OK: 0,
  /** Runtime failure: a crash, or a start that failed for another reason. */
  CRASH: 1,
  /** Bad usage or configuration: flags, settings file, an address that cannot be used. */
  CONFIG: 2,
  /** A port is taken. */
  PORT_IN_USE: 3,
} as const;
export type CliExitCode = (typeof CliExitCode)[keyof typeof CliExitCode];

/** Levels accepted by `--log-level` and `SWITCHBOARD_LOG_LEVEL` (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The variable setting the log level of both CLIs (and the broker they start). */
export const LOG_LEVEL_ENV = 'SWITCHBOARD_LOG_LEVEL';
/** Older name, still read when `SWITCHBOARD_LOG_LEVEL` is unset. */
export const LOG_LEVEL_ENV_ALIAS = 'SWB_LOG_LEVEL';

/** The log level set in `env`, if any (not validated). */
export function envLogLevel(env: Record<string, string | undefined>): string | undefined {
  return env[LOG_LEVEL_ENV] || env[LOG_LEVEL_ENV_ALIAS] || undefined;
}

/** Which variable `envLogLevel` read (for error messages). */
export function envLogLevelName(env: Record<string, string | undefined>): string {
  return env[LOG_LEVEL_ENV] ? LOG_LEVEL_ENV : LOG_LEVEL_ENV_ALIAS;
}

/** True for one of `LOG_LEVELS`. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Help text lines describing the exit codes, identical in both CLIs. */
export const EXIT_CODES_HELP = `Exit codes: ${CliExitCode.OK} stopped normally, ${CliExitCode.CRASH} runtime failure, ${CliExitCode.CONFIG} bad usage or configuration, ${CliExitCode.PORT_IN_USE} port in use.`;

/**
 * A repeat of a stop signal sooner than this (ms) is the same one delivered twice: a terminal's
 * Ctrl-C reaches a process under `npm run` from the terminal (the whole foreground group) and
 * again forwarded by npm. Only a later one means "stop waiting, exit now".
 */
export const SIGNAL_ECHO_MS = 1_000;
