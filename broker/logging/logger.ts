/**
 * Structured logging with pino. Level from `SWB_LOG_LEVEL` (default `info`; tests use `silent`
 * unless set). Never log secrets: payloads are logged only as their event name and size.
 */
import pino from 'pino';

export type Logger = pino.Logger;

/** Creates the broker's root logger writing JSON lines to stdout (or `destination`). */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.SWB_LOG_LEVEL ?? 'info';
  return pino({ name: options.name ?? 'switchboard-broker', level });
}
