/** The charts' y-axis labels fit the axis: four digits in full, larger values abbreviated. */
import { describe, expect, it } from 'vitest';
import { AXIS_WIDTH, axisTick } from '../../renderer/src/views/charts/charts-model';

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
