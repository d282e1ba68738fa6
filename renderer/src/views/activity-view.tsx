/**
 * Activity: the audit log of every command this console sent (who, what, target, result, time),
 * newest first, live (`activity` events). Kept by the host in its data directory; parameters that
 * are secrets appear only as `<set>` / `<cleared>`.
 */
import { useEffect, useState } from 'react';
import type { ActivityEntry } from '../../../shared/console-api-activity';
import type { ErrorInfo } from '../../../shared/error-catalogue';
import type { ConsoleClient } from '../api/console-client';
import { ErrorBanner } from '../components/error-banner';
import { StatusBadge } from '../components/status-badge';
import '../styles/realms.css';
import { useConnectionId } from './use-connection-id';

const LIMIT = 200;

const time = (at: number): string => new Date(at).toLocaleString('en-GB', { hour12: false });

function params(entry: ActivityEntry): string {
  return Object.entries(entry.params)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
}

export function ActivityView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const [entries, setEntries] = useState<ActivityEntry[]>([]);
  const [error, setError] = useState<ErrorInfo | null>(null);

  useEffect(() => {
    let live = true;
    void client.api.listActivity({ connectionId, limit: LIMIT }).then((result) => {
      if (!live) return;
      // Entries that arrived as events meanwhile stay (merged by seq).
      if (result.ok)
        setEntries((list) => {
          const seen = new Set(list.map((e) => e.seq));
          return [...list, ...result.value.entries.filter((e) => !seen.has(e.seq))]
            .sort((a, b) => b.seq - a.seq)
            .slice(0, LIMIT);
        });
      setError(result.ok ? null : result.error);
    });
    const stop = client.api.on('activity', (entry) => {
      if (entry.connectionId !== connectionId) return;
      setEntries((list) => [entry, ...list.filter((e) => e.seq !== entry.seq)].slice(0, LIMIT));
    });
    return () => {
      live = false;
      stop();
    };
  }, [client, connectionId]);

  return (
    <main className="page" data-testid="activity-view">
      <header className="page__header">
        <div>
          <h2 className="page__title">Activity</h2>
          <p className="muted">
            Every command this console sent, newest first (reads such as listing realms are not
            recorded). Kept in the console&apos;s data directory; secrets are never written.
          </p>
        </div>
      </header>
      <ErrorBanner title="Activity unavailable:" message={error?.message} testId="activity-error" />
      {entries.length === 0 && !error && (
        <p className="panel muted" data-testid="activity-empty">
          Nothing sent yet.
        </p>
      )}
      <ol className="item-list" data-testid="activity-list">
        {entries.map((entry) => (
          <li key={entry.seq} className="item activity-item" data-testid="activity-entry">
            <span className="activity-item__when muted">{time(entry.at)}</span>
            <span className="item__main">
              <strong data-testid="activity-action">{entry.action}</strong>
              {entry.target && <span> · {entry.target}</span>}
              <span className="muted">
                {' '}
                · {entry.connectionId} · by {entry.actor}
              </span>
              {params(entry) && (
                <code className="activity-item__params" data-testid="activity-params">
                  {params(entry)}
                </code>
              )}
              {entry.error && <span className="activity-item__error">{entry.error}</span>}
            </span>
            <StatusBadge label={entry.ok ? 'ok' : 'failed'} tone={entry.ok ? 'ok' : 'bad'} />
          </li>
        ))}
      </ol>
    </main>
  );
}
