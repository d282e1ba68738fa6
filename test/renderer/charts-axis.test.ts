/** The charts' y-axis labels fit the axis: four digits in full, larger values abbreviated. */
import { describe, expect, it } from 'vitest';
import { AXIS_WIDTH, axisTick, timeTicks } from '../../renderer/src/views/charts/charts-model';

describe('axisTick', () => {
  it('writes up to four digits in full, with a separator, and abbreviates the rest', () => {
    expect(axisTick(0)).toBe('0');
    expect(axisTick(0.5)).toBe('0.5');
    expect(axisTick(7)).toBe('7');
    expect(axisTick(1_500)).toBe('1,500');
    expect(axisTick(9_999)).toBe('9,999');
    expect(axisTick(12_000)).toBe('12k');
    expect(axisTick(15_500)).toBe('16k');
    expect(axisTick(999_000)).toBe('999k');
    expect(axisTick(1_500_000)).toBe('1.5M');
    expect(axisTick(2_000_000_000)).toBe('2G');
    expect(axisTick(Number.NaN)).toBe('');
  });

  it('never needs more characters than the axis is wide for (11 px type, ~7 px a glyph)', () => {
    const samples = [0, 9, 99, 999, 1_500, 9_999, 10_000, 99_999, 999_999, 9_999_999, 99e9];
    for (const value of samples) {
      expect(axisTick(value).length * 7 + 8).toBeLessThanOrEqual(AXIS_WIDTH);
    }
  });
});

describe('timeTicks', () => {
  const at = (hms: string): number => Date.parse(`2026-12-05T${hms}Z`);
  const labels = (ticks: number[]): string[] =>
    ticks.map((t) => new Date(t).toISOString().slice(11, 19));

  it('never repeats a clock label, even when readings share a second', () => {
    const ticks = timeTicks(at('15:53:02') + 100, at('15:53:02') + 900);
    expect(new Set(labels(ticks)).size).toBe(ticks.length);
    expect(labels(ticks)).toEqual(['15:53:02']);
  });

  it('picks whole, aligned steps for short and long windows', () => {
    expect(labels(timeTicks(at('15:53:01.300'), at('15:53:09')))).toEqual([
      '15:53:02',
      '15:53:04',
      '15:53:06',
      '15:53:08',
    ]);
    expect(labels(timeTicks(at('15:50:07'), at('16:00:00')))).toEqual([
      '15:52:00',
      '15:54:00',
      '15:56:00',
      '15:58:00',
      '16:00:00',
    ]);
    const day = timeTicks(at('00:00:00'), at('00:00:00') + 3 * 86_400_000);
    expect(day.length).toBeLessThanOrEqual(5);
    expect(day.every((t) => t % 21_600_000 === 0)).toBe(true);
  });

  it('is empty for no readings and one tick for a single reading', () => {
    expect(timeTicks(Infinity, -Infinity)).toEqual([]);
    expect(timeTicks(at('10:00:00'), at('10:00:00'))).toEqual([at('10:00:00')]);
  });
});
