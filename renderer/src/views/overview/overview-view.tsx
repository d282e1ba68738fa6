/**
 * Overview of the selected connection (`selectedConnectionId`): state (the local broker's
 * lifecycle, or a remote broker's reachability), address, uptime, registered producers and
 * consumers, message counters since the broker started and rates, and a banner while the store
 * refuses new durable copies (free-space reserve). Re-renders on every `overview`
 * event (≥ 1/s). While the console host is unreachable everything is marked stale.
 */
import { LOCAL_CONNECTION_ID } from '../../../../shared/console-api';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { StatCard } from '../../components/stat-card';
import { StatusBadge } from '../../components/status-badge';
import { formatCount, formatDuration, formatRate } from '../../format';
import { useAppStore } from '../../store/app-store';
import { runLocalBroker } from '../../store/bind-console';
import { ChartsView } from '../charts/charts-view';
import { ClusterPanel } from './cluster-panel';
import { portsDetail } from '../local-broker/local-ports';
import {
  LocalBrokerButtons,
  useLifecycleConfirm,
  type LocalBrokerAction,
} from '../local-broker/local-broker-controls';
import { buildOverviewModel, connectionsDetail, type OnlineTotal } from './overview-model';
import { useState } from 'react';

function onlineTotal(value: OnlineTotal | null): string {
  return value ? `${formatCount(value.online)} / ${formatCount(value.total)}` : '—';
}

export function OverviewView({ client }: { client: ConsoleClient }) {
  const connectionId = useAppStore((s) => s.selectedConnectionId);
  const overview = useAppStore((s) => s.overviews[connectionId]);
  const name = useAppStore(
    (s) => s.connections.find((c) => c.id === connectionId)?.name ?? overview?.name,
  );
  const local = useAppStore((s) => s.localBroker);
  const restarting = useAppStore((s) => s.restarting);
  const actionError = useAppStore((s) => s.actionError);
  const stale = useAppStore((s) => s.connection !== 'online');
  const isLocal = connectionId === LOCAL_CONNECTION_ID;
  const model = buildOverviewModel(overview, isLocal ? local : null, { stale });
  const busy = restarting || model.state === 'starting';
  const stateLabel = model.staleState ? `stale (was ${model.staleState})` : model.state;
  const [action, setAction] = useState<LocalBrokerAction | null>(null);
  const run = (next: LocalBrokerAction): void => {
    setAction(next);
    void runLocalBroker(client, next).finally(() => setAction(null));
  };
  const confirm = useLifecycleConfirm(run, 'overview-broker');

  return (
    <main className="page" data-testid="overview-view">
      <header className="page__header">
        <div className="page__heading">
          <h2 className="page__title">{name ?? (isLocal ? 'Local broker' : connectionId)}</h2>
          <p className="muted wrap-anywhere" data-testid="overview-url">
            {model.url ?? '—'}
            {model.dataDir && <span className="muted"> · data in {model.dataDir}</span>}
          </p>
          {model.nodeId && (
            <p className="muted wrap-anywhere" data-testid="overview-node-id">
              Node <code>{model.nodeId}</code>
            </p>
          )}
        </div>
        <div className="page__actions">
          <StatusBadge label={stateLabel} tone={model.tone} testId="overview-status" />
          {isLocal && (
            <LocalBrokerButtons
              state={local?.state ?? 'stopped'}
              busy={restarting ? (action ?? 'restart') : null}
              disabled={busy || stale}
              show="one"
              onClick={confirm.ask}
              testIdPrefix="overview-broker"
            />
          )}
        </div>
      </header>

      {isLocal && confirm.panel}
      {model.stoppedOnPurpose && (
        <p className="panel notice" data-testid="overview-stopped">
          <strong>Stopped.</strong> The local broker was stopped from this console: clients cannot
          connect and there are no figures until you start it again (Start, above). Its data stays
          in {model.dataDir ?? 'its data directory'}.
        </p>
      )}
      {model.httpApiOff && (
        <p className="panel notice" data-testid="overview-http-off">
          This broker&apos;s HTTP API is switched off (<code>http_api.enabled: false</code>), so
          there are no figures to show here. Requests and realms still work: they use signed
          commands over the broker&apos;s socket.
        </p>
      )}
      {model.noAdminToken && (
        <p className="panel notice" data-testid="overview-no-admin-token">
          This connection signs in with a realm manager key, and the broker&apos;s figures need its
          admin token, so there are no figures to show here. Requests of that realm still work.
        </p>
      )}
      <ErrorBanner title="Broker problem:" message={model.problem} testId="overview-error" />
      <ErrorBanner
        title="Store refusing writes:"
        message={model.storageRefusal}
        testId="overview-storage-refusing"
      />
      {!stale && (
        <ErrorBanner
          title="Action failed:"
          message={actionError?.message}
          testId="overview-action-error"
        />
      )}

      <div className="grid">
        {isLocal && (
          <StatCard
            label="Port"
            testId="overview-port"
            rawValue={model.port}
            value={model.port ?? '—'}
            detail={portsDetail(local)}
            detailTestId="overview-ports"
          />
        )}
        <StatCard
          label="Uptime"
          testId="overview-uptime"
          rawValue={model.uptimeSeconds}
          value={formatDuration(model.uptimeSeconds)}
          detail={
            isLocal
              ? `${formatCount(model.restarts)} restart${model.restarts === 1 ? '' : 's'} after crashes`
              : 'since broker start'
          }
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
          detail={
            <>
              since broker start ·{' '}
              <span data-testid="overview-produced-rate">{formatRate(model.producedRate)}</span>
            </>
          }
        />
        <StatCard
          label="Messages delivered"
          testId="overview-delivered"
          rawValue={model.delivered}
          value={formatCount(model.delivered)}
          detail={
            <>
              since broker start ·{' '}
              <span data-testid="overview-delivered-rate">{formatRate(model.deliveredRate)}</span>
            </>
          }
        />
        <StatCard
          label="Connections"
          testId="overview-connections"
          rawValue={model.connections}
          value={formatCount(model.connections)}
          detail={
            <span title="The broker counts this console's management connection and its live taps among its connections; they are not your clients.">
              {connectionsDetail(model.connections, model.consoleConnections)}
            </span>
          }
          detailTestId="overview-connections-detail"
        />
      </div>

      {overview?.reachable && (
        <ClusterPanel
          cluster={overview.stats?.cluster}
          relay={overview.counters?.cluster}
          sampledAt={overview.sampledAt}
        />
      )}

      <ChartsView client={client} brokerStopped={model.stoppedOnPurpose} />

      <p className="muted small" data-testid="overview-sampled-at">
        {model.sampledAt
          ? `${stale ? 'Last sampled' : 'Sampled'} ${new Date(model.sampledAt).toLocaleTimeString('en-GB')}`
          : 'Waiting for data…'}
      </p>
    </main>
  );
}
