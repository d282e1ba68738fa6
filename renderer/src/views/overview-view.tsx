/**
 * Overview page of the local broker: lifecycle state, address, uptime, registered producers and
 * consumers, message totals and rates. Re-renders on every `overview` event (≥ 1/s).
 */
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';
import type { ConsoleClient } from '../api/console-client';
import { ErrorBanner } from '../components/error-banner';
import { StatCard } from '../components/stat-card';
import { StatusBadge } from '../components/status-badge';
import { formatCount, formatDuration, formatRate } from '../format';
import { useAppStore } from '../store/app-store';
import { restartLocalBroker } from '../store/bind-console';
import { ChartsView } from './charts-view';
import { buildOverviewModel, type OnlineTotal } from './overview-model';

function onlineTotal(value: OnlineTotal | null): string {
  return value ? `${formatCount(value.online)} / ${formatCount(value.total)}` : '—';
}

export function OverviewView({ client }: { client: ConsoleClient }) {
  const overview = useAppStore((s) => s.overviews[LOCAL_CONNECTION_ID]);
  const local = useAppStore((s) => s.localBroker);
  const restarting = useAppStore((s) => s.restarting);
  const actionError = useAppStore((s) => s.actionError);
  const model = buildOverviewModel(overview, local);
  const busy = restarting || model.state === 'starting';

  return (
    <main className="page" data-testid="overview-view">
      <header className="page__header">
        <div>
          <h2 className="page__title">Local broker</h2>
          <p className="muted" data-testid="overview-url">
            {model.url ?? '—'}
            {model.dataDir && <span className="muted"> · data in {model.dataDir}</span>}
          </p>
        </div>
        <div className="page__actions">
          <StatusBadge label={model.state} tone={model.tone} testId="overview-status" />
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => void restartLocalBroker(client)}
          >
            {restarting ? 'Restarting…' : 'Restart'}
          </button>
        </div>
      </header>

      <ErrorBanner title="Broker problem:" message={model.problem} testId="overview-error" />
      <ErrorBanner
        title="Action failed:"
        message={actionError?.message}
        testId="overview-action-error"
      />

      <div className="grid">
        <StatCard
          label="Port"
          testId="overview-port"
          rawValue={model.port}
          value={model.port ?? '—'}
        />
        <StatCard
          label="Uptime"
          testId="overview-uptime"
          rawValue={model.uptimeSeconds}
          value={formatDuration(model.uptimeSeconds)}
          detail={`${formatCount(model.restarts)} restart${model.restarts === 1 ? '' : 's'} after crashes`}
        />
        <StatCard
          label="Producers"
          testId="overview-producers"
          rawValue={model.producers?.online}
          value={onlineTotal(model.producers)}
          detail="online / registered"
        />
        <StatCard
          label="Consumers"
          testId="overview-consumers"
          rawValue={model.consumers?.online}
          value={onlineTotal(model.consumers)}
          detail="online / registered"
        />
        <StatCard
          label="Messages produced"
          testId="overview-produced"
          rawValue={model.produced}
          value={formatCount(model.produced)}
          detail={formatRate(model.producedRate)}
          detailTestId="overview-produced-rate"
        />
        <StatCard
          label="Messages delivered"
          testId="overview-delivered"
          rawValue={model.delivered}
          value={formatCount(model.delivered)}
          detail={formatRate(model.deliveredRate)}
          detailTestId="overview-delivered-rate"
        />
        <StatCard
          label="Connections"
          testId="overview-connections"
          rawValue={model.connections}
          value={formatCount(model.connections)}
        />
      </div>

      <ChartsView client={client} />

      <p className="muted small" data-testid="overview-sampled-at">
        {model.sampledAt
          ? `Sampled ${new Date(model.sampledAt).toLocaleTimeString('en-GB')}`
          : 'Waiting for data…'}
      </p>
    </main>
  );
}
