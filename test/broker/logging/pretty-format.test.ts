/**
 * `--log-format pretty` (broker/logging/pretty-format.ts) and the SIGUSR2 level cycle
 * (log-level-cycle.ts) on a real pino logger.
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { cycleLogLevelOnSignal, nextLogLevel } from '../../../broker/logging/log-level-cycle';
import { prettyDestination, prettyLine } from '../../../broker/logging/pretty-format';

describe('pretty log lines', () => {
  it('writes time, level, message and fields; keeps non-JSON text', () => {
    const out: string[] = [];
    const logger = pino(
      { level: 'info' },
      prettyDestination({ write: (l: string) => (out.push(l), true) }),
    );
    logger.warn({ port: 17352, file: '/etc/s.json', note: 'two words' }, 'broker listening');
    logger.error({ err: new Error('boom') }, 'failed');
    expect(out[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}broker listening port=17352 file=\/etc\/s\.json note="two words"\n$/,
    );
    expect(out[0]).not.toContain('pid=');
    expect(out[1]).toMatch(/ERROR failed err="Error: boom \(at /);
    expect(prettyLine('not json\n')).toBe('not json\n');
  });
});

describe('SIGUSR2 log level cycle', () => {
  it('steps one notch more verbose, then back to the start level', () => {
    expect(nextLogLevel('info', 'info')).toBe('debug');
    expect(nextLogLevel('debug', 'info')).toBe('trace');
    expect(nextLogLevel('trace', 'info')).toBe('info');
    expect(nextLogLevel('trace', 'trace')).toBe('info');
    expect(nextLogLevel('warn', 'warn')).toBe('info');
  });

  it('changes a live logger on each signal and logs the change', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const proc = new EventEmitter();
    const remove = cycleLogLevelOnSignal(logger, proc);
    try {
      proc.emit('SIGUSR2');
      expect(logger.level).toBe('debug');
      logger.debug('now visible');
      proc.emit('SIGUSR2');
      proc.emit('SIGUSR2');
      expect(logger.level).toBe('info');
      const records = lines.map((l) => JSON.parse(l) as { msg: string; to?: string });
      expect(records.map((r) => r.to ?? r.msg)).toEqual(['debug', 'now visible', 'trace', 'info']);
    } finally {
      remove();
    }
    expect(proc.listenerCount('SIGUSR2')).toBe(0);
  });
});
