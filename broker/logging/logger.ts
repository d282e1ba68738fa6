/**
 * Structured logging with pino, JSON lines on stdout. Level: the `level` option (the CLI's
 * `--log-level`), else `SWITCHBOARD_LOG_LEVEL`, else the older `SWB_LOG_LEVEL`, else `info`.
 * Never log secrets: payloads are logged only as their event name and size.
 *
 * Output goes through one shared `FdDestination` on stdout, which stops writing once the reader
 * has gone (`EPIPE`) instead of retrying, and is flushed (once, without retries) at exit.
 */
import pino from 'pino';
import { envLogLevel as levelFromEnv } from '../../shared/cli-conventions';
import { FdDestination } from './fd-destination';
import { prettyDestination } from './pretty-format';

export type Logger = pino.Logger;

/** The level from the environment: `SWITCHBOARD_LOG_LEVEL`, else `SWB_LOG_LEVEL`, else undefined. */
export function envLogLevel(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return levelFromEnv(env);
}

let stdoutDestination: FdDestination | null = null;

/** The process-wide stdout destination (created on first use, flushed at exit). */
export function stdoutLogDestination(): FdDestination {
  if (!stdoutDestination) {
    const destination = new FdDestination(1);
    process.once('exit', () => destination.flushSync());
    stdoutDestination = destination;
  }
  return stdoutDestination;
}

/**
 * Creates the broker's root logger writing to stdout: JSON lines, or with `format: 'pretty'`
 * one readable line per record (`pretty-format.ts`).
 */
export function createLogger(
  options: { level?: string; name?: string; format?: 'json' | 'pretty' } = {},
): Logger {
  const level = options.level ?? envLogLevel() ?? 'info';
  const destination =
    options.format === 'pretty'
      ? prettyDestination(stdoutLogDestination())
      : stdoutLogDestination();
  return pino({ name: options.name ?? 'switchboard-broker', level }, destination);
}
