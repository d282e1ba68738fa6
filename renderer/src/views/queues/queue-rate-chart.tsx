/**
 * A queue's rates over time on its detail (issue 27): publish / deliver / ACK per second as the
 * host computed them at each poll of the table (`QueueRow.rates`), kept here for the time the
 * detail is open (at most `MAX_POINTS` readings), drawn with the Overview's `SeriesChart`.
 */
import { useState } from 'react';
import type { QueueRow } from '../../../../shared/console-api-queues';
import { SERIES_COLORS, SeriesChart, type ChartSeries } from '../charts/series-chart';

/** Readings kept (at the table's 2 s period: 10 minutes). */
const MAX_POINTS = 300;

const SERIES: readonly ChartSeries[] = [
  { key: 'publish', label: 'publish/s', color: SERIES_COLORS[0]! },
  { key: 'deliver', label: 'deliver/s', color: SERIES_COLORS[1]! },
  { key: 'ack', label: 'ACK/s', color: SERIES_COLORS[2]! },
];

interface Point {
  t: number;
  publish: number | null;
  deliver: number | null;
  ack: number | null;
}

export function QueueRateChart({ row, fetchedAt }: { row: QueueRow; fetchedAt: number }) {
  const [points, setPoints] = useState<readonly Point[]>([]);
  // A new reading of the table: one more point (state derived while rendering, no effect).
  if (points.at(-1)?.t !== fetchedAt) {
    const { rates } = row;
    setPoints([
      ...points.slice(-(MAX_POINTS - 1)),
      {
        t: fetchedAt,
        publish: rates?.publish ?? null,
        deliver: rates?.deliver ?? null,
        ack: rates?.ack ?? null,
      },
    ]);
  }
  return (
    <SeriesChart
      title="Messages per second (since this detail opened)"
      testId="queue-rate-chart"
      rows={points}
      series={SERIES}
      decimals
      height={140}
    />
  );
}
