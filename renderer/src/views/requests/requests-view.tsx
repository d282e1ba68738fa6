/**
 * Authorization requests of the selected connection: every pending request, oldest first, a
 * page of `PAGE_SIZE` at a time, with the total and the count per realm (realm filter, age);
 * the selected request's details with Approve (role) and Reject (reason) — a decision moves on
 * to the request after it —, keyboard shortcuts, and the desktop-notification switch; below, the
 * realm list with its badges.
 *
 * On a broker without `list_requests` (another tyo-mq-protocol broker) only the oldest request
 * of each realm can be seen (`AUTHORIZATION_NEXT`, §7.2): the view says so.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { formatDuration } from '../../format';
import { useAppStore } from '../../store/app-store';
import { refreshRequests } from '../../store/request-actions';
import '../../styles/realms.css';
import { RealmRow } from '../realms/realm-badges';
import { RequestCard } from './request-card';
import { askNotificationPermission, notificationPermission } from './request-notifications';
import { useConnectionId } from '../../hooks/use-connection-id';
import { useNow } from '../../hooks/use-now';
import { usePolled } from '../../hooks/use-polled';
import { Page } from '../../components/page';

const QUEUE_RELOAD_MS = 3_000;
/** Requests per page. */
export const PAGE_SIZE = 20;

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
  // The selected request and its place in the page (where the next one is once it is decided).
  const [selection, setSelection] = useState<{ id: string | null; index: number }>({
    id: null,
    index: 0,
  });
  // The cursors of the pages before the one shown (empty: the first page).
  const [cursors, setCursors] = useState<string[]>([]);
  const [permission, setPermission] = useState(notificationPermission);
  const cursor = cursors[cursors.length - 1];

  const polled = usePolled(
    useCallback(
      () =>
        client.api.listPendingRequests({
          connectionId,
          limit: PAGE_SIZE,
          ...(filter ? { realm: filter } : {}),
          ...(cursor ? { cursor } : {}),
        }),
      [client, connectionId, filter, cursor],
    ),
    QUEUE_RELOAD_MS,
  );
  const { error: queueError, reload: reloadQueue } = polled;
  const page = polled.value;
  const queue = useMemo(() => page?.requests ?? [], [page]);
  // A page emptied by decisions: back to the one before it (once per emptied page).
  const [emptied, setEmptied] = useState<typeof page>(null);
  if (page && page !== emptied && page.requests.length === 0 && cursors.length > 0) {
    setEmptied(page);
    setCursors((c) => c.slice(0, -1));
  }

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

  // The selected request, else (it was just decided) the one now at its place: the next.
  const found = queue.findIndex((r) => r.requestId === selection.id);
  const index = found >= 0 ? found : Math.min(selection.index, Math.max(0, queue.length - 1));
  const selected = queue[index] ?? null;
  const select = useCallback(
    (i: number) => setSelection({ id: queue[i]?.requestId ?? null, index: i }),
    [queue],
  );
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      const step = event.key === 'n' || event.key === 'j' ? 1 : event.key === 'k' ? -1 : 0;
      if (!step || queue.length === 0) return;
      event.preventDefault();
      select((index + step + queue.length) % queue.length);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [queue, index, select]);

  const error = queueError ?? requestsError;
  return (
    <Page
      testId="requests-view"
      title="Authorization requests"
      intro={
        <>
          Oldest first
          <span className="keys-hint">
            {' '}
            · keys: <kbd>a</kbd> approve, <kbd>r</kbd> reject, <kbd>n</kbd>/<kbd>j</kbd> next,{' '}
            <kbd>k</kbd> previous
          </span>
        </>
      }
      aside={
        <>
          <div className="page__actions requests-tools">
            <label className="field">
              <span>Realm</span>
              <select
                value={filter}
                onChange={(e) => {
                  setFilter(e.target.value);
                  setCursors([]);
                }}
                data-testid="requests-filter"
              >
                <option value="">all realms</option>
                {realms?.realms.map((r) => (
                  <option key={r.name} value={r.name}>
                    {r.name}
                    {!filter && page?.perRealm[r.name] ? ` (${page.perRealm[r.name]})` : ''}
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
            {permission === 'granted' && (
              <span className="muted small-inline">notifications on</span>
            )}
          </div>
        </>
      }
    >
      <ErrorBanner title="Requests unavailable:" message={error?.message} testId="requests-error" />
      <ErrorBanner
        title="Decision failed:"
        message={decisionError?.message}
        testId="request-decision-error"
      />

      {page && page.total > 0 && (
        <div className="queue-summary" data-testid="request-summary">
          <strong data-testid="request-total">
            {page.total} pending{filter ? ` in ${filter}` : ''}
          </strong>
          {!filter && Object.keys(page.perRealm).length > 1 && (
            <ul className="queue-summary__realms" aria-label="Pending per realm">
              {Object.entries(page.perRealm).map(([realm, n]) => (
                <li key={realm} data-testid={`request-count-${realm}`}>
                  <button
                    type="button"
                    className="chip"
                    onClick={() => {
                      setFilter(realm);
                      setCursors([]);
                    }}
                  >
                    {realm} {n}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {!page.complete && (
            <span className="muted small-inline" data-testid="request-incomplete">
              This broker shows only the oldest request of each realm.
            </span>
          )}
        </div>
      )}

      {queue.length > 0 && (
        <ol
          className="queue"
          aria-label="Pending requests"
          data-testid="request-queue"
          start={cursors.length * PAGE_SIZE + 1}
        >
          {queue.map((r, i) => (
            <li key={r.requestId}>
              <button
                type="button"
                className={`queue__item${r.requestId === selected?.requestId ? ' queue__item--active' : ''}`}
                aria-current={r.requestId === selected?.requestId ? 'true' : undefined}
                onClick={() => select(i)}
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

      {(cursors.length > 0 || page?.nextCursor) && (
        <nav className="pager" aria-label="Request pages" data-testid="request-pager">
          <button
            type="button"
            className="button"
            disabled={cursors.length === 0}
            onClick={() => setCursors((c) => c.slice(0, -1))}
            data-testid="request-page-prev"
          >
            Older
          </button>
          <span className="muted" data-testid="request-page">
            {cursors.length * PAGE_SIZE + 1}–{cursors.length * PAGE_SIZE + queue.length} of{' '}
            {page?.total ?? 0}
          </span>
          <button
            type="button"
            className="button"
            disabled={!page?.nextCursor}
            onClick={() => {
              const next = page?.nextCursor;
              if (next) setCursors((c) => [...c, next]);
            }}
            data-testid="request-page-next"
          >
            Newer
          </button>
        </nav>
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
    </Page>
  );
}
