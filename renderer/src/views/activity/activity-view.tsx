/**
 * Activity: the audit log of every command this console sent (what was done, to what, on which
 * connection — by name — by whom, with the outcome), newest first, live (`activity` events).
 * Kept by the host in its data directory; parameters that are secrets appear only as `<set>` /
 * `<cleared>`. Actions are shown in words (activity-labels.ts), their wire names in a tooltip;
 * a DLQ replay lists its trail (activity-trail.tsx: DLQ id → new id → where it went).
 *
 * Filters: connection (default: the one selected at the top; or all), command, outcome. By
 * default only the operator's actions are listed; a toggle includes the console's own background
 * commands (temporary tap tokens, demo set-up and clean-up), marked "background".
 */
import { useEffect, useState } from 'react';
import type {
  ActivityEntry,
  ActivityList,
  ActivityOrigin,
} from '../../../../shared/console-api-activity';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import { useAppStore } from '../../store/app-store';
import '../../styles/realms.css';
import '../../styles/activity.css';
import { actionLabel, entryDetails, entryLabel } from './activity-labels';
import { ActivityTrail } from './activity-trail';
import { useConnectionId } from '../../hooks/use-connection-id';
import { Page } from '../../components/page';

const LIMIT = 200;
const OPERATOR_ONLY: ActivityOrigin[] = ['operator'];
/** The connection filter's value for "every connection". */
const ALL = '*';

type Outcome = 'ok' | 'failed' | '';

const time = (at: number): string => new Date(at).toLocaleString('en-GB', { hour12: false });

interface Filters {
  /** A connection id, or `ALL`. */
  connection: string;
  action: string;
  outcome: Outcome;
  includeConsole: boolean;
}

function matches(entry: ActivityEntry, f: Filters): boolean {
  return (
    (f.connection === ALL || entry.connectionId === f.connection) &&
    (f.includeConsole || entry.origin === 'operator') &&
    (!f.action || entry.action === f.action) &&
    (!f.outcome || entry.ok === (f.outcome === 'ok'))
  );
}

export function ActivityView({ client }: { client: ConsoleClient }) {
  const selectedId = useConnectionId();
  const known = useAppStore((s) => s.connections);
  const [entries, setEntries] = useState<ActivityEntry[]>([]);
  const [facets, setFacets] = useState<ActivityList['facets']>({ connections: [], actions: [] });
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [includeConsole, setIncludeConsole] = useState(false);
  const [connection, setConnection] = useState(selectedId);
  const [action, setAction] = useState('');
  const [outcome, setOutcome] = useState<Outcome>('');
  // Another connection picked at the top: the filter follows it (adjusted while rendering).
  const [followed, setFollowed] = useState(selectedId);
  if (followed !== selectedId) {
    setFollowed(selectedId);
    setConnection(selectedId);
    setEntries([]);
  }
  const filters: Filters = { connection, action, outcome, includeConsole };

  useEffect(() => {
    let live = true;
    const f: Filters = { connection, action, outcome, includeConsole };
    void client.api
      .listActivity({
        ...(connection === ALL ? {} : { connectionId: connection }),
        ...(includeConsole ? {} : { origins: OPERATOR_ONLY }),
        ...(action ? { actions: [action] } : {}),
        ...(outcome ? { outcome } : {}),
        limit: LIMIT,
      })
      .then((result) => {
        if (!live) return;
        if (result.ok) {
          setFacets(result.value.facets);
          // Entries that arrived as events meanwhile stay (merged by seq).
          setEntries((list) => {
            const seen = new Set(list.map((e) => e.seq));
            return [...list, ...result.value.entries.filter((e) => !seen.has(e.seq))]
              .sort((a, b) => b.seq - a.seq)
              .slice(0, LIMIT);
          });
        }
        setError(result.ok ? null : result.error);
      });
    const stop = client.api.on('activity', (entry) => {
      if (!matches(entry, f)) return;
      setEntries((list) => [entry, ...list.filter((e) => e.seq !== entry.seq)].slice(0, LIMIT));
    });
    return () => {
      live = false;
      stop();
    };
  }, [client, connection, action, outcome, includeConsole]);

  // A filter changed: the list is refetched with it (the effect above).
  const refilter = (apply: () => void): void => {
    setEntries([]);
    apply();
  };

  const nameOf = (entry: ActivityEntry): string =>
    entry.connectionName ??
    known.find((c) => c.id === entry.connectionId)?.name ??
    facets.connections.find((c) => c.id === entry.connectionId)?.name ??
    entry.connectionId;
  const connectionOptions = new Map<string, string>(
    facets.connections.map((c) => [c.id, known.find((k) => k.id === c.id)?.name ?? c.name]),
  );
  for (const c of known) if (!connectionOptions.has(c.id)) connectionOptions.set(c.id, c.name);
  const actions =
    facets.actions.includes(action) || !action ? facets.actions : [...facets.actions, action];
  const filtered = connection !== ALL || action !== '' || outcome !== '';

  return (
    <Page
      testId="activity-view"
      title="Activity"
      intro={
        <>
          Every command this console sent, newest first (reads such as listing realms are not
          recorded). Kept in the console&apos;s data directory; secrets are never written. The
          console&apos;s own background commands are listed only when included below.
        </>
      }
    >
      <div className="activity-tools" role="group" aria-label="Filters">
        <label className="field">
          Connection
          <select
            value={connection}
            onChange={(e) => refilter(() => setConnection(e.target.value))}
            data-testid="activity-filter-connection"
          >
            <option value={ALL}>All connections</option>
            {[...connectionOptions].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Command
          <select
            value={action}
            onChange={(e) => refilter(() => setAction(e.target.value))}
            data-testid="activity-filter-action"
          >
            <option value="">All commands</option>
            {actions.map((name) => (
              <option key={name} value={name}>
                {actionLabel(name)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Outcome
          <select
            value={outcome}
            onChange={(e) => refilter(() => setOutcome(e.target.value as Outcome))}
            data-testid="activity-filter-outcome"
          >
            <option value="">Any outcome</option>
            <option value="ok">Succeeded</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <label className="check activity-tools__check">
          <input
            type="checkbox"
            checked={includeConsole}
            onChange={(e) => refilter(() => setIncludeConsole(e.target.checked))}
            data-testid="activity-include-console"
          />
          Include the console&apos;s own background commands (tap tokens, demo mode)
        </label>
      </div>
      <ErrorBanner title="Activity unavailable:" message={error?.message} testId="activity-error" />
      {entries.length === 0 && !error && (
        <p className="panel muted" data-testid="activity-empty">
          {filtered
            ? 'Nothing matches these filters.'
            : includeConsole
              ? 'Nothing sent yet.'
              : 'No operator actions yet.'}
        </p>
      )}
      <ol className="item-list" data-testid="activity-list">
        {entries
          .filter((entry) => matches(entry, filters))
          .map((entry) => {
            const details = entryDetails(entry);
            return (
              <li
                key={entry.seq}
                className="item activity-item"
                data-testid="activity-entry"
                data-origin={entry.origin}
                data-action={entry.action}
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
                  <strong data-testid="activity-action" title={entry.action}>
                    {entryLabel(entry)}
                  </strong>
                  {entry.target && <span data-testid="activity-target"> · {entry.target}</span>}
                  <span className="muted">
                    {' '}
                    · on <span data-testid="activity-connection">{nameOf(entry)}</span> · by{' '}
                    {entry.actor}
                  </span>
                  {details && (
                    <span className="activity-item__params" data-testid="activity-params">
                      {details}
                    </span>
                  )}
                  {entry.result && (
                    <span className="activity-item__note" data-testid="activity-result">
                      {entry.result}
                    </span>
                  )}
                  {entry.trail && entry.trail.length > 0 && (
                    <ActivityTrail steps={entry.trail} omitted={entry.trailOmitted} />
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
            );
          })}
      </ol>
    </Page>
  );
}
