/**
 * Changing the log level of a running broker (docs/configuration.md, "Logs"): SIGUSR2 steps
 * the level one notch more verbose, wrapping from `trace` back to the level the broker started
 * with, so an operator can turn on `debug` for an incident and back without a restart.
 */
import type { Logger } from './logger';

/** The order SIGUSR2 walks, most quiet first. */
export const CYCLE_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * The level after `current`: one more verbose; after `trace`, `initial` again.
 * @param initial the level the broker started with.
 */
export function nextLogLevel(current: string, initial: string): string {
  const i = CYCLE_LEVELS.indexOf(current as (typeof CYCLE_LEVELS)[number]);
  if (i < 0 || i === CYCLE_LEVELS.length - 1) return initial === current ? 'info' : initial;
  return CYCLE_LEVELS[i + 1]!;
}

/**
 * Installs the SIGUSR2 handler on `proc` (default `process`): each signal sets the next level
 * and logs the change at the new level's floor (`warn`, so it shows at every usual level).
 * @returns a function that removes the handler.
 */
export function cycleLogLevelOnSignal(
  logger: Logger,
  proc: NodeJS.EventEmitter = process,
): () => void {
  const initial = logger.level;
  const onSignal = () => {
    const from = logger.level;
    const to = nextLogLevel(from, initial);
    logger.level = to;
    logger.warn({ from, to, signal: 'SIGUSR2' }, 'log level changed');
  };
  proc.on('SIGUSR2', onSignal);
  return () => proc.off('SIGUSR2', onSignal);
}
