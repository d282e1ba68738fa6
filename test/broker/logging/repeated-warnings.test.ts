/**
 * RepeatedWarnings with a real pino logger writing JSON lines into a stream: the first warning
 * of a key in full, then one summary line per key per window with the count; quiet keys are
 * forgotten; the number of keys is bounded; close() writes what is pending.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RepeatedWarnings } from '../../../broker/logging/repeated-warnings';

interface Line {
  level: number;
  msg: string;
  realm?: string;
  event?: string;
  reason?: string;
  id?: string;
  repeated?: number;
  window_ms?: number;
}

function captured(): { logger: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (text) lines.push(JSON.parse(text) as Line);
      }
      done();
    },
  });
  // The stream's write completes synchronously: a line is in `lines` once the call returns.
  return { logger: pino({ level: 'info' }, stream), lines };
}

const KEY = { realm: 'switchboard-demo', event: 'demo/orders/created', reason: 'max_attempts' };

afterEach(() => {
  vi.useRealTimers();
});

describe('RepeatedWarnings', () => {
  it('logs the first warning of a key in full and counts the rest into one summary', () => {
    const { logger, lines } = captured();
    const repeated = new RepeatedWarnings(logger, { intervalMs: 10_000 });
    for (let i = 0; i < 50; i += 1) repeated.warn(KEY, { id: `m${i}` }, 'dead-lettered');
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, msg: 'dead-lettered', id: 'm0', ...KEY }),
    ]);
    repeated.flush();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      level: 40,
      ...KEY,
      repeated: 49,
      window_ms: 10_000,
      msg: 'dead-lettered (49 more in the last 10 s)',
    });
    // Nothing new: no line at the next window; a quiet window later the key is forgotten and
    // its next occurrence is logged in full again.
    repeated.flush();
    expect(lines).toHaveLength(2);
    repeated.flush();
    repeated.warn(KEY, { id: 'again' }, 'dead-lettered');
    expect(lines[2]).toMatchObject({ msg: 'dead-lettered', id: 'again' });
    repeated.close();
  });

  it('keeps keys apart by realm, event, reason and message', () => {
    const { logger, lines } = captured();
    const repeated = new RepeatedWarnings(logger);
    const other = { ...KEY, reason: 'ack_timeout' };
    for (let i = 0; i < 3; i += 1) {
      repeated.warn(KEY, {}, 'dead-lettered');
      repeated.warn(other, {}, 'dead-lettered');
      repeated.warn({ ...KEY, realm: 'b' }, {}, 'dead-lettered');
      repeated.warn(KEY, {}, 'something else');
    }
    expect(lines).toHaveLength(4);
    repeated.close();
    const summaries = lines.slice(4);
    expect(summaries).toHaveLength(4);
    expect(summaries.every((line) => line.repeated === 2)).toBe(true);
  });

  it('writes summaries on its own timer, once per window', () => {
    vi.useFakeTimers();
    const { logger, lines } = captured();
    const repeated = new RepeatedWarnings(logger, { intervalMs: 10_000 });
    repeated.warn(KEY, {}, 'dead-lettered');
    for (let second = 1; second <= 25; second += 1) {
      vi.advanceTimersByTime(1_000);
      repeated.warn(KEY, {}, 'dead-lettered');
      repeated.warn(KEY, {}, 'dead-lettered');
    }
    // 51 warnings in 25 s: 1 in full, a summary at 10 s (the 18 of seconds 1–9: the timer runs
    // before second 10's pair) and at 20 s (20).
    expect(lines.map((line) => line.repeated ?? 0)).toEqual([0, 18, 20]);
    repeated.close();
    expect(lines.map((line) => line.repeated ?? 0)).toEqual([0, 18, 20, 12]);
    // Closed: no timer keeps running.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('bounds the keys it tracks: further keys are counted under *', () => {
    const { logger, lines } = captured();
    const repeated = new RepeatedWarnings(logger, { maxKeys: 3 });
    for (let i = 0; i < 10; i += 1) repeated.warn({ ...KEY, realm: `r${i}` }, {}, 'dead-lettered');
    expect(lines.map((line) => line.realm)).toEqual(['r0', 'r1', 'r2']);
    repeated.close();
    expect(lines[3]).toMatchObject({ realm: '*', event: '*', reason: '*', repeated: 7 });
  });
});
