/**
 * Activity: the audit log of every command this console sent (who, what, target, result, time),
 * newest first, live (`activity` events). Kept by the host in its data directory; parameters that
 * are secrets appear only as `<set>` / `<cleared>`.
 *
 * By default only the operator's actions are listed; a toggle includes the console's own
 * background commands (temporary tap tokens, demo set-up and clean-up), marked "console".
 */
import { useEffect, useState } from 'react';
import type { ActivityEntry, ActivityOrigin } from '../../../shared/console-api-activity';
import type { ErrorInfo } from '../../../shared/error-catalogue';
import type { ConsoleClient } from '../api/console-client';
import { ErrorBanner } from '../components/error-banner';
import { StatusBadge } from '../components/status-badge';
import '../styles/realms.css';
import '../styles/activity.css';
import { useConnectionId } from './use-connection-id';

const LIMIT = 200;
const OPERATOR_ONLY: ActivityOrigin[] = ['operator'];

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
  const [includeConsole, setIncludeConsole] = useState(false);

  useEffect(() => {
    let live = true;
    const origins = includeConsole ? undefined : OPERATOR_ONLY;
    void client.api.listActivity({ connectionId, limit: LIMIT, origins }).then((result) => {
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
      if (!includeConsole && entry.origin !== 'operator') return;
      setEntries((list) => [entry, ...list.filter((e) => e.seq !== entry.seq)].slice(0, LIMIT));
    });
    return () => {
      live = false;
      stop();
    };
  }, [client, connectionId, includeConsole]);

  return (
    <main className="page" data-testid="activity-view">
      <header className="page__header">
        <div>
          <h2 className="page__title">Activity</h2>
          <p className="muted">
            Every command this console sent, newest first (reads such as listing realms are not
            recorded). Kept in the console&apos;s data directory; secrets are never written. The
            console&apos;s own background commands are listed only when included below.
          </p>
        </div>
      </header>
      <div className="activity-tools">
        <label className="check">
          <input
            type="checkbox"
            checked={includeConsole}
            onChange={(e) => {
              // Refetched with the new filter (the effect below).
              setEntries([]);
              setIncludeConsole(e.target.checked);
            }}
            data-testid="activity-include-console"
          />
          Include the console&apos;s own background commands (tap tokens, demo mode)
        </label>
      </div>
      <ErrorBanner title="Activity unavailable:" message={error?.message} testId="activity-error" />
      {entries.length === 0 && !error && (
        <p className="panel muted" data-testid="activity-empty">
          {includeConsole ? 'Nothing sent yet.' : 'No operator actions yet.'}
        </p>
      )}
      <ol className="item-list" data-testid="activity-list">
        {entries.map((entry) => (
          <li
            key={entry.seq}
            className="item activity-item"
            data-testid="activity-entry"
            data-origin={entry.origin}
          >
            <span className="activity-item__when muted">{time(entry.at)}</span>
            <span className="item__main">
              {entry.origin === 'console' && (
                <span
                  className="activity-origin"
                  data-testid="activity-origin"
                  title="Sent by the console on its own (not an operator action)"
                >
                  background
                </span>
              )}
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
              {entry.note && (
                <span className="activity-item__note" data-testid="activity-note">
                  {entry.note}
                </span>
              )}
            </span>
            <StatusBadge label={entry.ok ? 'ok' : 'failed'} tone={entry.ok ? 'ok' : 'bad'} />
          </li>
        ))}
      </ol>
    </main>
  );
}
