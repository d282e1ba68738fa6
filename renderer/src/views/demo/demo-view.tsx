/**
 * Demo mode: one button starts a small simulated workload against the local broker in its own
 * realm (producers, a fast, a slow and a stuck consumer, a client asking for authorization), so
 * every view has live data with no network; one button stops it and removes the realm. Always
 * the local broker's demo, whichever connection is selected (with a note when it is another).
 */
import { useEffect, useState } from 'react';
import type { DemoStatus } from '../../../../shared/console-api-local';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { StatCard } from '../../components/stat-card';
import { StatusBadge } from '../../components/status-badge';
import { formatCount } from '../../format';
import '../../styles/tap.css';
import { LOCAL_CONNECTION_ID } from '../../../../shared/console-api';
import { useAppStore } from '../../store/app-store';
import { useConnectionId } from '../../hooks/use-connection-id';
import { Page } from '../../components/page';

export function DemoView({ client }: { client: ConsoleClient }) {
  // Demo mode exists on the local broker only: this page always shows (and drives) that one,
  // whichever connection the top bar has selected.
  const connectionId = LOCAL_CONNECTION_ID;
  const selectedId = useConnectionId();
  const selectedName = useAppStore(
    (s) => s.connections.find((c) => c.id === selectedId)?.name ?? selectedId,
  );
  const [status, setStatus] = useState<DemoStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);

  useEffect(() => {
    const stop = client.api.on('demo', (next) => {
      if (next.connectionId === connectionId) setStatus(next);
    });
    void client.api.getDemo({ connectionId }).then((result) => {
      if (result.ok) setStatus(result.value);
      else setError(result.error);
    });
    return stop;
  }, [client, connectionId]);

  const toggle = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    const result = status?.running
      ? await client.api.stopDemo({ connectionId })
      : await client.api.startDemo({ connectionId });
    if (result.ok) setStatus(result.value);
    else setError(result.error);
    setBusy(false);
  };

  const running = status?.running ?? false;
  return (
    <Page
      testId="demo-view"
      title="Demo mode"
      intro={
        <>
          A simulated workload on the local broker, in its own realm{' '}
          <code>{status?.realm ?? 'switchboard-demo'}</code>: no network needed.
        </>
      }
      aside={
        <>
          <div className="page__actions">
            <StatusBadge
              label={running ? 'running' : 'stopped'}
              tone={running ? 'ok' : 'idle'}
              testId="demo-state"
            />
            <button
              type="button"
              className={`button${running ? ' button--danger' : ' button--primary'}`}
              disabled={busy}
              onClick={() => void toggle()}
              data-testid="demo-toggle"
            >
              {busy ? (running ? 'Stopping…' : 'Starting…') : running ? 'Stop demo' : 'Start demo'}
            </button>
          </div>
        </>
      }
    >
      {selectedId !== LOCAL_CONNECTION_ID && (
        <p className="panel notice" data-testid="demo-local-only">
          Demo mode runs on the local broker only, so this page shows the local broker&apos;s demo —
          not <strong>{selectedName}</strong>, the connection selected at the top. The other pages
          show {selectedName}.
        </p>
      )}
      <ErrorBanner
        title="Demo failed:"
        message={error?.message ?? status?.error}
        testId="demo-error"
      />

      <div className="grid">
        <StatCard
          label="Messages produced"
          testId="demo-produced"
          rawValue={status?.produced ?? 0}
          value={formatCount(status?.produced ?? 0)}
        />
        <StatCard
          label="Delivered to demo consumers"
          testId="demo-consumed"
          rawValue={status?.consumed ?? 0}
          value={formatCount(status?.consumed ?? 0)}
        />
        <StatCard
          label="Acknowledged"
          testId="demo-acked"
          rawValue={status?.acked ?? 0}
          value={formatCount(status?.acked ?? 0)}
        />
        <StatCard
          label="Demo clients online"
          testId="demo-clients"
          rawValue={status?.clients ?? 0}
          value={formatCount(status?.clients ?? 0)}
        />
      </div>

      <section className="panel demo-about">
        <h3 className="section-title demo-about__title">What runs</h3>
        <ul className="demo-about__list">
          <li>
            Producers <code>orders</code>, <code>sensors</code> and <code>jobs</code> on{' '}
            <code>demo/orders/created</code>, <code>demo/sensors/temp</code> and{' '}
            <code>demo/jobs/run</code> (jobs are guaranteed).
          </li>
          <li>
            <code>fast-worker</code> takes <code>demo/#</code> and acknowledges at once;{' '}
            <code>slow-worker</code> takes the jobs and acknowledges after 1.5 s.
          </li>
          <li>
            <code>stuck-worker</code> takes the orders and never acknowledges, so they are retried
            and land in the dead letter queue.
          </li>
          <li>
            A kiosk (<code>demo-kiosk-07</code>) asks to join the realm: its request waits on the
            Requests page.
          </li>
          <li>
            Stop closes every demo client and removes the realm with its queues, dead letters and
            requests.
          </li>
        </ul>
      </section>
    </Page>
  );
}
