/**
 * Authorization requests of the selected connection: the live queue (realm filter, age), the
 * selected request's details with Approve (role) and Reject (reason), keyboard shortcuts, and the
 * desktop-notification switch; below, the realm list with its badges.
 *
 * The protocol shows a manager only the oldest pending request of a filter (`AUTHORIZATION_NEXT`,
 * §7.2), so the queue holds the oldest one of each realm; later ones appear as these are decided.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ConsoleClient } from '../api/console-client';
import { ErrorBanner } from '../components/error-banner';
import { formatDuration } from '../format';
import { useAppStore } from '../store/app-store';
import { refreshRequests } from '../store/request-actions';
import '../styles/realms.css';
import { RealmRow } from './realm-badges';
import { RequestCard } from './request-card';
import { askNotificationPermission, notificationPermission } from './request-notifications';
import { useConnectionId } from './use-connection-id';
import { useNow } from './use-now';
import { usePolled } from './use-polled';

const QUEUE_RELOAD_MS = 3_000;

const isTyping = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName);

export function RequestsView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const realms = useAppStore((s) => s.realms[connectionId] ?? null);
  const requestsError = useAppStore((s) => s.requestsError);
  const realmsError = useAppStore((s) => s.realmsError);
  const decisionError = useAppStore((s) => s.decisionError);
  const lastDecision = useAppStore((s) => s.lastDecision);
  const now = useNow();
  const [filter, setFilter] = useState('');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [permission, setPermission] = useState(notificationPermission);

  const polled = usePolled(
    useCallback(
      () => client.api.listPendingRequests({ connectionId, ...(filter ? { realm: filter } : {}) }),
      [client, connectionId, filter],
    ),
    QUEUE_RELOAD_MS,
  );
  const { error: queueError, reload: reloadQueue } = polled;
  const queue = useMemo(() => polled.value?.requests ?? [], [polled.value]);

  useEffect(() => {
    void refreshRequests(client, connectionId);
  }, [client, connectionId]);
  useEffect(
    () =>
      client.api.on('pendingRequest', (p) => {
        if (p.connectionId === connectionId) void reloadQueue();
      }),
    [client, connectionId, reloadQueue],
  );
  useEffect(() => {
    if (!lastDecision) return undefined;
    const timer = setTimeout(() => void reloadQueue(), 0);
    return () => clearTimeout(timer);
  }, [lastDecision, reloadQueue]);

  const index = Math.max(
    0,
    queue.findIndex((r) => r.requestId === selectedId),
  );
  const selected = queue[index] ?? null;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      const step = event.key === 'n' || event.key === 'j' ? 1 : event.key === 'k' ? -1 : 0;
      if (!step || queue.length === 0) return;
      event.preventDefault();
      const next = queue[(index + step + queue.length) % queue.length];
      if (next) setSelectedId(next.requestId);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [queue, index]);

  const error = queueError ?? requestsError;
  return (
    <main className="page" data-testid="requests-view">
      <header className="page__header">
        <div>
          <h2 className="page__title">Authorization requests</h2>
          <p className="muted">
            Oldest first
            <span className="keys-hint">
              {' '}
              · keys: <kbd>a</kbd> approve, <kbd>r</kbd> reject, <kbd>n</kbd>/<kbd>j</kbd> next,{' '}
              <kbd>k</kbd> previous
            </span>
          </p>
        </div>
        <div className="page__actions requests-tools">
          <label className="field">
            <span>Realm</span>
            <select
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              data-testid="requests-filter"
            >
              <option value="">all realms</option>
              {realms?.realms.map((r) => (
                <option key={r.name} value={r.name}>
                  {r.name}
                </option>
              ))}
            </select>
          </label>
          {permission === 'default' && (
            <button
              type="button"
              className="button"
              onClick={() => void askNotificationPermission().then(setPermission)}
              data-testid="requests-notify"
            >
              Notify me
            </button>
          )}
          {permission === 'granted' && <span className="muted small-inline">notifications on</span>}
        </div>
      </header>

      <ErrorBanner title="Requests unavailable:" message={error?.message} testId="requests-error" />
      <ErrorBanner
        title="Decision failed:"
        message={decisionError?.message}
        testId="request-decision-error"
      />

      {queue.length > 0 && (
        <ol className="queue" aria-label="Pending requests" data-testid="request-queue">
          {queue.map((r) => (
            <li key={r.requestId}>
              <button
                type="button"
                className={`queue__item${r.requestId === selected?.requestId ? ' queue__item--active' : ''}`}
                aria-current={r.requestId === selected?.requestId ? 'true' : undefined}
                onClick={() => setSelectedId(r.requestId)}
                data-testid={`queue-${r.clientId}`}
              >
                <strong>{r.clientName || r.clientId}</strong>
                <span className="muted">
                  {r.realm} · {r.role} ·{' '}
                  {r.createdAt === null
                    ? '—'
                    : formatDuration(Math.max(0, (now - r.createdAt) / 1000))}
                </span>
              </button>
            </li>
          ))}
        </ol>
      )}

      {selected ? (
        <RequestCard
          key={selected.requestId}
          client={client}
          connectionId={connectionId}
          request={selected}
          now={now}
        />
      ) : (
        !error && (
          <p className="panel muted" data-testid="request-empty">
            No pending request{filter ? ` in ${filter}` : ''}. New ones appear here on their own.
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
