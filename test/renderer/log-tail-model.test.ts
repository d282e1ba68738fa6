/** The Local broker log's level filter and search (issue 22 item 14). */
import { describe, expect, it } from 'vitest';
import { filterLogLines, readLogLine } from '../../renderer/src/views/local-broker/log-tail-model';

const at = Date.UTC(2026, 0, 5, 10, 0, 0);
const pino = (level: number, msg: string, extra: Record<string, unknown> = {}) => ({
  at,
  stream: 'stdout' as const,
  line: JSON.stringify({ level, time: at, pid: 1, hostname: 'h', msg, ...extra }),
});

describe('log tail model', () => {
  const lines = [
    pino(20, 'management command', { command: 'stats' }),
    pino(30, 'socket authenticated', { realm: 'fleet' }),
    pino(40, 'token refused', { refusal: 'invalid' }),
    pino(50, 'management command failed'),
    { at, stream: 'stderr' as const, line: 'Error: boom' },
    { at, stream: 'stdout' as const, line: 'plain output' },
  ].map(readLogLine);

  it('reads pino records with their level and other output as info or error', () => {
    expect(lines.map((l) => l.level)).toEqual([20, 30, 40, 50, 50, 30]);
    expect(lines[2]!.text).toMatch(/ warn {2}token refused \{"refusal":"invalid"\}$/);
    expect(lines[4]!.text).toMatch(/ err {3}Error: boom$/);
    expect(readLogLine({ at, stream: 'stdout', line: '42' }).text).toMatch(/ out {3}42$/);
  });

  it('filters by lowest level and by text, case-insensitively', () => {
    expect(filterLogLines(lines, { minLevel: 0, search: '' })).toHaveLength(6);
    expect(filterLogLines(lines, { minLevel: 30, search: '' })).toHaveLength(5);
    expect(filterLogLines(lines, { minLevel: 40, search: '' }).map((l) => l.level)).toEqual([
      40, 50, 50,
    ]);
    expect(filterLogLines(lines, { minLevel: 0, search: '  REFUSED ' })).toHaveLength(1);
    expect(filterLogLines(lines, { minLevel: 0, search: 'fleet' })[0]!.text).toContain(
      'socket authenticated',
    );
    expect(filterLogLines(lines, { minLevel: 50, search: 'token' })).toEqual([]);
  });
});
