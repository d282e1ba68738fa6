/**
 * Authorization requests of the selected connection: the oldest pending request (it appears without a
 * reload, fed by the `pendingRequest` stream) with Approve (role) and Reject (reason), and the
 * realm list with its badges.
 */
import { useEffect, useState } from 'react';
import type { ConsoleClient } from '../api/console-client';
import { ErrorBanner } from '../components/error-banner';
import { useAppStore } from '../store/app-store';
import { refreshRequests } from '../store/request-actions';
import { RealmRow } from './realm-badges';
import { RequestCard } from './request-card';

/** Epoch ms, updated every second (ages and countdowns). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function RequestsView({ client }: { client: ConsoleClient }) {
  const connectionId = useAppStore((s) => s.selectedConnectionId);
  const connectionName = useAppStore(
    (s) => s.connections.find((c) => c.id === connectionId)?.name ?? 'Local broker',
  );
  const request = useAppStore((s) => s.pending[connectionId] ?? null);
  const realms = useAppStore((s) => s.realms[connectionId] ?? null);
  const requestsError = useAppStore((s) => s.requestsError);
  const realmsError = useAppStore((s) => s.realmsError);
  const decisionError = useAppStore((s) => s.decisionError);
  const lastDecision = useAppStore((s) => s.lastDecision);
  const now = useNow();

  useEffect(() => {
    void refreshRequests(client, connectionId);
  }, [client, connectionId]);

  return (
    <main className="page" data-testid="requests-view">
      <header className="page__header">
        <div>
          <h2 className="page__title">Authorization requests</h2>
          <p className="muted">{connectionName} · oldest pending request first</p>
        </div>
      </header>

      <ErrorBanner
        title="Requests unavailable:"
        message={requestsError?.message}
        testId="requests-error"
      />

      <ErrorBanner
        title="Decision failed:"
        message={decisionError?.message}
        testId="request-decision-error"
      />

      {request ? (
        <RequestCard
          key={request.requestId}
          client={client}
          connectionId={connectionId}
          request={request}
          now={now}
        />
      ) : (
        !requestsError && (
          <p className="panel muted" data-testid="request-empty">
            No pending request. New ones appear here on their own.
          </p>
        )
      )}

      {lastDecision && (
        <p className="muted small" data-testid="request-last-decision">
          {lastDecision.status === 'approved' ? 'Approved' : 'Rejected'} {lastDecision.clientId} in{' '}
          {lastDecision.realm}
          {lastDecision.status === 'approved' ? ` as ${lastDecision.role}` : ''}.
        </p>
      )}

      <h2 className="section-title">Realms</h2>
      <ErrorBanner
        title="Realms unavailable:"
        message={realmsError?.message}
        testId="realms-error"
      />
      {realms && !realms.authEnabled && (
        <p className="muted">Authentication is off on this broker: every realm is open.</p>
      )}
      {realms && (
        <ul className="realm-list" data-testid="realm-list">
          {realms.realms.map((realm) => (
            <RealmRow key={realm.name} realm={realm} now={now} />
          ))}
        </ul>
      )}
    </main>
  );
}
