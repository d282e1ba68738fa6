/**
 * One line chart of time series with an HTML legend: the Overview's charts (charts-view.tsx) and
 * the Topic tree's numeric fields (views/topics/topic-detail.tsx). Rows are `{t, <key>: number |
 * null}` (null: a gap); `t` is epoch ms, drawn as a clock. Memoised: only new rows redraw it.
 */
import { memo, useMemo } from 'react';
import {
  CartesianGrid,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { AXIS_WIDTH, axisTick, timeTicks } from './charts-model';

/** One drawn series: the row key, its legend label and its colour. */
export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

/** Series colours: SVG attributes take no CSS variables; these read on both themes. */
export const SERIES_COLORS = [
  '#3b82f6',
  '#16a34a',
  '#8b5cf6',
  '#dc2626',
  '#d97706',
  '#db2777',
  '#0891b2',
  '#65a30d',
];

const AXIS = '#8a94a3';

/** One formatter for every tick: `toLocaleTimeString` builds a new one per call (slow). */
const CLOCK = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
export const clock = (t: number): string => CLOCK.format(t);

// No negative left margin: it pushed the first digits of a long tick out of the SVG (1,500 read 500).
const CHART_MARGIN = { top: 4, right: 8, bottom: 0, left: 0 };
const TOOLTIP_STYLE = { background: 'var(--panel)', border: '1px solid var(--line)' };
const tooltipLabel = (t: unknown): string => clock(Number(t));
// A time axis spans the readings themselves, not recharts' rounded numbers.
const TIME_DOMAIN = ['dataMin', 'dataMax'] as const;
const isTime = (t: unknown): t is number => typeof t === 'number' && Number.isFinite(t);

export interface SeriesChartProps {
  title: string;
  testId: string;
  rows: readonly object[];
  series: readonly ChartSeries[];
  /** Whether the y axis shows fractions (default: integers only). */
  decimals?: boolean;
  /** Height of the plot, px (default 180). */
  height?: number;
}

export const SeriesChart = memo(function SeriesChart({
  title,
  testId,
  rows,
  series,
  decimals = false,
  height = 180,
}: SeriesChartProps) {
  const ticks = useMemo(() => {
    let min = Infinity;
    let max = -Infinity;
    for (const row of rows) {
      const t = (row as { t?: unknown }).t;
      if (isTime(t)) {
        min = Math.min(min, t);
        max = Math.max(max, t);
      }
    }
    return timeTicks(min, max);
  }, [rows]);
  return (
    <figure className="ops-chart" data-testid={testId}>
      <figcaption className="ops-chart__title">{title}</figcaption>
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows as object[]} margin={CHART_MARGIN}>
          <CartesianGrid stroke={AXIS} strokeOpacity={0.25} vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={TIME_DOMAIN}
            ticks={ticks}
            tickFormatter={clock}
            stroke={AXIS}
            fontSize={11}
            minTickGap={40}
          />
          <YAxis
            stroke={AXIS}
            fontSize={11}
            allowDecimals={decimals}
            width={AXIS_WIDTH}
            tickFormatter={axisTick}
          />
          <Tooltip labelFormatter={tooltipLabel} contentStyle={TOOLTIP_STYLE} />
          {series.map((s) => (
            <Line
              key={s.key}
              type="linear"
              dataKey={s.key}
              name={s.label}
              stroke={s.color}
              dot={false}
              strokeWidth={2}
              isAnimationActive={false}
              connectNulls={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      {/* An HTML legend: recharts' own re-measures itself and, where it wraps, loops. */}
      <ul className="ops-legend">
        {series.map((s) => (
          <li key={s.key}>
            <span className="ops-legend__swatch" style={{ background: s.color }} />
            {s.label}
          </li>
        ))}
      </ul>
    </figure>
  );
});
