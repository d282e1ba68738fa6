/**
 * The Overview charts: message rates (produced, delivered, queued), problems (dead-lettered, ACK
 * timeouts, rate-limited) per second, depths and connections, for all realms or one, over
 * 5 min / 1 h / since the console started. The history is fetched once per range from the
 * service (`getMetricsHistory`) and then extended by `metricsPoint` events.
 */
import { memo, useEffect, useMemo, useState } from 'react';
import type { MetricPoint, MetricRange } from '../../../../shared/console-api-operations';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { StatCard } from '../../components/stat-card';
import { formatCount, formatRate } from '../../format';
import {
  ALL_REFETCH_AFTER,
  appendPoint,
  chartRows,
  realmsOf,
  thinRows,
  type ChartRow,
} from './charts-model';
import { useAppStore } from '../../store/app-store';
import { SeriesChart, clock, type ChartSeries } from './series-chart';
import { useConnectionId } from '../../hooks/use-connection-id';
import '../../styles/operations.css';

const RANGES: { id: MetricRange; label: string }[] = [
  { id: '5m', label: '5 min' },
  { id: '1h', label: '1 hour' },
  { id: 'all', label: 'Since start' },
];

interface Series extends ChartSeries {
  key: keyof ChartRow;
}

const CHARTS: { title: string; testId: string; series: Series[] }[] = [
  {
    title: 'Messages per second',
    testId: 'chart-messages',
    series: [
      { key: 'produced', label: 'produced', color: '#3b82f6' },
      { key: 'delivered', label: 'delivered', color: '#16a34a' },
      { key: 'queued', label: 'queued', color: '#8b5cf6' },
    ],
  },
  {
    title: 'Problems per second',
    testId: 'chart-problems',
    series: [
      { key: 'deadLettered', label: 'dead-lettered', color: '#dc2626' },
      { key: 'ackTimeouts', label: 'ACK timeouts', color: '#d97706' },
      { key: 'rateLimited', label: 'rate-limited', color: '#db2777' },
    ],
  },
  {
    title: 'Depths and connections (now)',
    testId: 'chart-depths',
    series: [
      { key: 'queueDepth', label: 'queue depth', color: '#8b5cf6' },
      { key: 'dlqDepth', label: 'DLQ depth', color: '#dc2626' },
      { key: 'connections', label: 'connections', color: '#0891b2' },
    ],
  },
];

/** The charts of one realm: the broker counts rate limits for all realms only. */
const ONE_REALM_CHARTS = CHARTS.map((chart) => ({
  ...chart,
  series: chart.series.filter((s) => s.key !== 'rateLimited'),
}));

/** How often appended points are drawn, ms: the charts redraw at most this often. */
const DRAW_EVERY_MS = 2_000;

function useMetricPoints(client: ConsoleClient, connectionId: string, range: MetricRange) {
  const [points, setPoints] = useState<MetricPoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    let appended = 0;
    let loaded = false;
    let pending: MetricPoint[] = [];
    const stop = client.api.on('metricsPoint', (event) => {
      if (event.connectionId === connectionId) pending.push(event.point);
    });
    const flush = (): void => {
      if (!loaded || pending.length === 0) return;
      const batch = pending;
      pending = [];
      appended += batch.length;
      setPoints((current) => batch.reduce((acc, p) => appendPoint(acc, p, range), current ?? []));
      if (range === 'all' && appended >= ALL_REFETCH_AFTER) setGeneration((g) => g + 1);
    };
    const timer = setInterval(flush, DRAW_EVERY_MS);
    void client.api.getMetricsHistory({ connectionId, range }).then((result) => {
      if (!live) return;
      if (!result.ok) {
        setError(result.error.message);
        setPoints([]);
        return;
      }
      setError(null);
      loaded = true;
      setPoints(result.value.points);
      flush();
    });
    return () => {
      live = false;
      clearInterval(timer);
      stop();
    };
  }, [client, connectionId, range, generation]);
  return { points, error };
}

/** Memoised: the Overview re-renders on every `overview` event; the charts only on their own. */
export const ChartsView = memo(function ChartsView({
  client,
  brokerStopped = false,
}: {
  client: ConsoleClient;
  /** The local broker was stopped on purpose: its gap in the charts is not an outage. */
  brokerStopped?: boolean;
}) {
  const connectionId = useConnectionId();
  const refused = useAppStore(
    (st) => st.connections.find((c) => c.id === connectionId)?.state === 'refused',
  );
  const [range, setRange] = useState<MetricRange>('5m');
  const [realm, setRealm] = useState<string | null>(null);
  const { points, error } = useMetricPoints(client, connectionId, range);
  const rows = useMemo(() => chartRows(points ?? [], realm), [points, realm]);
  const drawn = useMemo(() => thinRows(rows), [rows]);
  const realms = useMemo(() => realmsOf(points ?? []), [points]);
  const latest = points?.[points.length - 1] ?? null;
  const lastUp = [...(points ?? [])].reverse().find((p) => p.up) ?? null;
  const now = rows[rows.length - 1] ?? null;
  const totals = lastUp?.totals ?? null;
  const realmTotals = realm ? null : totals;

  return (
    <section className="panel ops-charts" data-testid="charts-view" aria-label="Charts">
      <header className="ops-toolbar">
        <h3 className="section-title ops-toolbar__title">Traffic</h3>
        <div className="ops-segmented" role="group" aria-label="Range">
          {RANGES.map(({ id, label }) => (
            <button
              key={id}
              type="button"
              className={`ops-segmented__item${range === id ? ' ops-segmented__item--on' : ''}`}
              aria-pressed={range === id}
              onClick={() => setRange(id)}
              data-testid={`chart-range-${id}`}
            >
              {label}
            </button>
          ))}
        </div>
        <label className="field">
          Realm
          <select
            value={realm ?? ''}
            onChange={(e) => setRealm(e.target.value || null)}
            data-testid="chart-realm"
          >
            <option value="">All realms</option>
            {realms.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </header>

      <ErrorBanner title="Charts unavailable:" message={error} testId="chart-error" />
      {latest && !latest.up && brokerStopped && (
        <p className="muted" data-testid="chart-stopped">
          No samples while the broker is stopped; the charts carry on once it runs again.
        </p>
      )}
      {latest && !latest.up && !brokerStopped && (
        <div className="error-banner" role="alert" data-testid="chart-unreachable">
          {refused ? (
            <>
              <strong>The broker refused this connection&apos;s admin token.</strong> No samples
              since {lastUp ? clock(lastUp.t) : 'the console started'}; set the right token in
              Connections and the charts carry on.
            </>
          ) : (
            <>
              <strong>Broker unreachable.</strong> No samples since{' '}
              {lastUp ? clock(lastUp.t) : 'the console started'}; the charts show a gap until it
              answers again (check the Overview status, or restart the broker).
            </>
          )}
        </div>
      )}

      <div className="grid">
        <StatCard
          label="Queue depth"
          testId="chart-queue-depth"
          rawValue={now?.queueDepth ?? null}
          value={formatCount(now?.queueDepth)}
          detail="durable copies held now"
        />
        <StatCard
          label="DLQ depth"
          testId="chart-dlq-depth"
          rawValue={now?.dlqDepth ?? null}
          value={formatCount(now?.dlqDepth)}
          detail="dead letters held now"
        />
        <StatCard
          label="Produced now"
          testId="chart-produced-rate"
          rawValue={now?.produced ?? null}
          value={formatRate(now?.produced)}
          // The total since broker start is the Overview's "Messages produced" card: one figure.
          detail="per second, latest sample"
        />
        <StatCard
          label="Dead-lettered now"
          testId="chart-dlq-rate"
          rawValue={now?.deadLettered ?? null}
          value={formatRate(now?.deadLettered)}
          detail={`${formatCount(realmTotals?.deadLettered)} since broker start`}
        />
      </div>

      {points === null ? (
        <p className="muted" data-testid="chart-loading">
          Loading history…
        </p>
      ) : points.length === 0 ? (
        <p className="ops-empty" data-testid="chart-empty">
          No samples yet. The console reads the broker every second; the charts fill in as soon as
          it answers.
        </p>
      ) : (
        <div className="ops-charts__grid">
          {(realm ? ONE_REALM_CHARTS : CHARTS).map((chart) => (
            <SeriesChart
              key={chart.testId}
              title={chart.title}
              testId={chart.testId}
              series={chart.series}
              rows={drawn}
            />
          ))}
        </div>
      )}
      <p className="muted small">
        Rates are per second between samples; totals count since the broker last started (a restart
        resets them, and the charts carry on). Rate-limited breaches have no realm.
      </p>
    </section>
  );
});
