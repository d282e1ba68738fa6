/** A real pino logger whose JSON lines are kept in memory, to assert what the broker logged. */
import pino from 'pino';
import { Writable } from 'node:stream';

export interface CapturedLog {
  logger: pino.Logger;
  /** Parsed log lines, oldest first. */
  readonly lines: Array<Record<string, unknown> & { msg?: string; level: number }>;
  /** The raw text of every line, for "never contains this secret" checks. */
  text(): string;
}

export function captureLogs(level = 'debug'): CapturedLog {
  const raw: string[] = [];
  const lines: CapturedLog['lines'] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim() === '') continue;
        raw.push(line);
        lines.push(JSON.parse(line) as CapturedLog['lines'][number]);
      }
      done();
    },
  });
  return { logger: pino({ level }, stream), lines, text: () => raw.join('\n') };
}
