/**
 * One topic's detail in the Topic tree (`topicTreeNode`): its figures, the chosen message (the
 * newest by default) in the payload viewer, a chart of the numeric fields of its last values,
 * and the history ring. Re-read every `REFRESH_MS` while open, so it follows the traffic without
 * the page holding every topic's history.
 */
import { useEffect, useMemo, useState } from 'react';
import type { TopicDetail, TopicSeries } from '../../../../shared/console-api-topics';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { PayloadViewer } from '../../components/payload-viewer';
import { formatChars, formatCount } from '../../format';
import { SERIES_COLORS, SeriesChart, clock, type ChartSeries } from '../charts/series-chart';
import { topicRateText } from './topic-tree-model';

/** How often an open detail is re-read, ms. */
export const REFRESH_MS = 2_000;

/**
 * Chart rows from the series: one row per time, a column per field (`f0`…: recharts reads a
 * dotted key as a path, and fields may be `a.b`). `lines`: the fields not in `hidden` (the
 * chart's one y-axis then fits them: trial finding 8, a 35,000 field flattened a 20 one);
 * `fields`: every field, for the toggles.
 */
export function seriesRows(
  series: readonly TopicSeries[],
  hidden: ReadonlySet<string> = new Set(),
): {
  rows: Record<string, number>[];
  lines: ChartSeries[];
  fields: ChartSeries[];
} {
  const byTime = new Map<number, Record<string, number>>();
  series.forEach((s, i) => {
    for (const { t, v } of s.points) {
      let row = byTime.get(t);
      if (!row) {
        row = { t };
        byTime.set(t, row);
      }
      row[`f${i}`] = v;
    }
  });
  const fields = series.map((s, i) => ({
    key: `f${i}`,
    label: s.field,
    color: SERIES_COLORS[i % SERIES_COLORS.length]!,
  }));
  return {
    rows: [...byTime.values()].sort((a, b) => a.t! - b.t!),
    lines: fields.filter((f) => !hidden.has(f.label)),
    fields,
  };
}

export function TopicDetailPanel({
  client,
  connectionId,
  treeId,
  topic,
  running,
  seen,
  onClose,
}: {
  client: ConsoleClient;
  connectionId: string;
  treeId: string;
  topic: string;
  running: boolean;
  /** Whether messages were seen on exactly this topic (else it is only a level above some). */
  seen: boolean;
  onClose(): void;
}) {
  const [loaded, setDetail] = useState<TopicDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notFound, setNotFound] = useState(false);
  /** The history entry shown in the viewer, by index (0 = newest). */
  const [shown, setShown] = useState(0);
  useEffect(() => {
    let live = true;
    if (!seen) return undefined;
    const read = async (): Promise<void> => {
      const result = await client.api.topicTreeNode({ connectionId, treeId, topic });
      if (!live) return;
      if (result.ok) {
        setDetail(result.value);
        setError(null);
        setNotFound(false);
      } else {
        setDetail(null);
        // An inner level nothing was published on exactly: not an error.
        setError(result.error.code === 'SWB_ERR_NOT_FOUND' ? null : result.error.message);
        setNotFound(result.error.code === 'SWB_ERR_NOT_FOUND');
      }
    };
    void read();
    const timer = running ? setInterval(() => void read(), REFRESH_MS) : undefined;
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [client, connectionId, treeId, topic, running, seen]);
  const none = !seen || notFound;
  const detail = seen ? loaded : null;
  /** Fields left off the chart, by name (kept while the detail follows the topic). */
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const chart = useMemo(() => seriesRows(detail?.series ?? [], hidden), [detail, hidden]);
  const toggle = (field: string, on: boolean): void =>
    setHidden((was) => {
      const next = new Set(was);
      if (on) next.delete(field);
      else next.add(field);
      return next;
    });
  const entry = detail?.history[shown] ?? detail?.history[0] ?? null;

  return (
    <section className="panel topic-detail" aria-label="Topic" data-testid="topic-detail">
      <header className="topic-detail__header">
        <h3 className="section-title topic-detail__title" data-testid="topic-detail-title">
          {topic}
        </h3>
        <button type="button" className="button" onClick={onClose} data-testid="topic-close">
          Close
        </button>
      </header>
      <ErrorBanner title="Topic:" message={error ?? undefined} testId="topic-detail-error" />
      {none && (
        <p className="muted" data-testid="topic-detail-none">
          Nothing was published on exactly this topic: open a topic below it.
        </p>
      )}
      {detail && (
        <p className="muted topic-detail__facts" data-testid="topic-detail-facts">
          {formatCount(detail.node.count)} messages · {topicRateText(detail.node.rate) || '0/s'}
          {detail.node.lastAt !== null && ` · last ${clock(detail.node.lastAt)}`}
          {detail.node.retained && ' · retained'} · subscribers{' '}
          {detail.node.subscribers === null ? '—' : formatCount(detail.node.subscribers)}
        </p>
      )}
      {entry && (
        <PayloadViewer
          key={`${entry.at}-${shown}`}
          text={entry.payload}
          enc={entry.enc ?? null}
          cutNote={
            entry.truncated
              ? `showing the first ${formatCount(entry.payload.length)} of ${formatChars(entry.size)}`
              : null
          }
          testId="topic-payload"
        />
      )}
      {chart.fields.length > 1 && (
        <div
          className="topic-detail__fields"
          role="group"
          aria-label="Fields on the chart"
          data-testid="topic-chart-fields"
        >
          <span className="muted">Chart:</span>
          {chart.fields.map((f) => (
            <label key={f.key} className="topic-detail__field">
              <input
                type="checkbox"
                checked={!hidden.has(f.label)}
                onChange={(e) => toggle(f.label, e.target.checked)}
                data-testid="topic-chart-field"
                data-field={f.label}
              />
              <span style={{ color: f.color }}>{f.label}</span>
            </label>
          ))}
        </div>
      )}
      {chart.lines.length > 0 && (
        <SeriesChart
          title="Numeric fields"
          testId="topic-chart"
          rows={chart.rows}
          series={chart.lines}
          decimals
          height={160}
        />
      )}
      {detail && detail.history.length > 0 && (
        <>
          <h4 className="topic-detail__subtitle">History (newest first)</h4>
          <ol className="topic-history" data-testid="topic-history">
            {detail.history.map((h, i) => (
              <li key={`${h.at}-${i}`}>
                <button
                  type="button"
                  className={`topic-history__item${i === shown ? ' topic-history__item--on' : ''}`}
                  onClick={() => setShown(i)}
                  data-testid="topic-history-item"
                >
                  <span className="muted">{clock(h.at)}</span>
                  <span className="topic-history__from">{h.retained ? 'retained' : h.from}</span>
                  <span className="topic-history__payload">{h.payload}</span>
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
