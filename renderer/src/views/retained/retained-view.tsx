/**
 * Retained (issue 27): the MQTT retained messages of one realm of the selected broker — topic,
 * size and a payload preview — read with `listRetained` every 3 s for the realm and topic
 * filter chosen (the filter applies on Enter / Apply, not on each key). Selecting a row shows
 * its payload in full with Delete (retained-detail.tsx); "Delete all matching" clears every
 * match of the filter once the operator typed the filter again. A broker without
 * `list_retained`, or one running without MQTT, gets one line saying so instead of a table.
 */
import { useCallback, useMemo, useState, type FormEvent } from 'react';
import type { RetainedEntry } from '../../../../shared/console-api-retained';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConnectionProblem } from '../../components/connection-problem';
import { ErrorBanner } from '../../components/error-banner';
import { Page } from '../../components/page';
import { formatCountOf } from '../../format';
import { useConnectionId } from '../../hooks/use-connection-id';
import { useConsoleAction } from '../../hooks/use-console-action';
import { usePolled } from '../../hooks/use-polled';
import { sizeText } from '../queues/queues-model';
import { RetainedDetail } from './retained-detail';
import '../../styles/operations.css';
import '../../styles/queues.css';
import '../../styles/realms.css';
import '../../styles/retained.css';

/** Refresh period of the table, ms. */
const REFRESH_MS = 3_000;
/** Rows per page (the broker allows up to 1,000). */
const PAGE = 200;
/** Characters of a preview shown in the table (the detail shows the whole payload). */
const CELL_CHARS = 120;

function cellPreview(entry: RetainedEntry): string {
  if (entry.sizeBytes === 0) return '(empty)';
  const text = entry.payloadEncoding === 'base64' ? `base64 ${entry.payload}` : entry.payload;
  return text.length > CELL_CHARS || entry.truncated ? `${text.slice(0, CELL_CHARS)}…` : text;
}

/** The realm picker's choices: configured realms and those in use, `default` first (also the E2EE identities view's). */
export function useRealmNames(client: ConsoleClient, connectionId: string): string[] {
  const call = useCallback(() => client.api.listRealms({ connectionId }), [client, connectionId]);
  const { value } = usePolled(call, 30_000);
  return useMemo(() => {
    const names = new Set(['default', ...(value?.realms.map((r) => r.name) ?? [])]);
    for (const r of value?.inUse ?? []) names.add(r.name);
    names.delete('admin');
    return [...names].sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : a < b ? -1 : 1));
  }, [value]);
}

export function RetainedView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const realms = useRealmNames(client, connectionId);
  const [realm, setRealm] = useState('default');
  const [draft, setDraft] = useState('#');
  const [filter, setFilter] = useState('#');
  const [selected, setSelected] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const deletion = useConsoleAction();

  const call = useCallback(
    () => client.api.listRetained({ connectionId, realm, filter, limit: PAGE }),
    [client, connectionId, realm, filter],
  );
  const { value: list, error, reload } = usePolled(call, REFRESH_MS);
  const entries = list?.state === 'ok' ? list.entries : [];
  const chosen = entries.find((e) => e.topic === selected) ?? null;

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilter(draft.trim() || '#');
    setSelected(null);
    setTyped('');
    deletion.clear();
  };
  const deleteAll = () =>
    void deletion
      .run(
        () =>
          confirmedCall(client.api, 'deleteRetained', {
            connectionId,
            realm,
            filter,
            confirmFilter: typed,
          }),
        (v) => v.summary,
        reload,
      )
      .then((v) => {
        if (!v) return;
        setTyped('');
        setSelected(null);
      });

  const intro =
    list?.state === 'ok'
      ? `${formatCountOf(entries.length, 'retained message')}${list.nextCursor ? ' (first page)' : ''} in ${list.realm} matching ${list.filter} · updated ${new Date(list.fetchedAt).toLocaleTimeString('en-GB')}`
      : 'The MQTT retained messages of a realm: the last message a new subscriber to a topic gets.';

  return (
    <Page testId="retained-view" title="Retained messages" intro={intro}>
      <ConnectionProblem
        error={error}
        connectionId={connectionId}
        what="its retained messages"
        testId="retained-problem"
      />
      <form className="ops-toolbar retained-toolbar" role="search" onSubmit={apply}>
        <label className="field">
          Realm
          <select
            value={realm}
            onChange={(e) => {
              setRealm(e.target.value);
              setSelected(null);
              deletion.clear();
            }}
            data-testid="retained-realm"
          >
            {(realms.includes(realm) ? realms : [realm, ...realms]).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="field field--grow">
          Topic filter
          <input
            type="search"
            value={draft}
            placeholder="# = all, + = one level"
            title="An MQTT topic filter: + matches one level, a final # everything below"
            onChange={(e) => setDraft(e.target.value)}
            data-testid="retained-filter"
          />
        </label>
        <button type="submit" className="button" data-testid="retained-apply">
          Apply
        </button>
      </form>

      <ErrorBanner
        title="Delete:"
        message={deletion.error?.message}
        testId="retained-action-error"
      />
      {deletion.message && (
        <p className="action-line" role="status" data-testid="retained-action-message">
          {deletion.message}
        </p>
      )}
      {list?.state === 'unsupported' && (
        <p className="ops-empty" data-testid="retained-unsupported">
          This broker does not offer retained message browsing (<code>list_retained</code>).
        </p>
      )}
      {list?.state === 'mqtt-off' && (
        <p className="ops-empty" data-testid="retained-mqtt-off">
          MQTT is not enabled on this broker: it keeps no retained messages.
        </p>
      )}
      {list?.state === 'ok' && entries.length === 0 && (
        <p className="ops-empty" data-testid="retained-empty">
          No retained message in {list.realm} matches <code>{list.filter}</code>.
        </p>
      )}
      {entries.length > 0 && (
        <table className="queues-table retained-table" data-testid="retained-table">
          <thead>
            <tr>
              <th>Topic</th>
              <th className="queues-num">Size</th>
              <th>Preview</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr
                key={entry.topic}
                className={`queues-row${entry.topic === selected ? ' queues-row--selected' : ''}`}
                aria-selected={entry.topic === selected}
                onClick={() => setSelected(entry.topic)}
                data-testid="retained-row"
                data-topic={entry.topic}
              >
                <td className="queues-cell--name" data-label="Topic">
                  <button
                    type="button"
                    className="queues-open"
                    onClick={() => setSelected(entry.topic)}
                  >
                    <code>{entry.topic}</code>
                  </button>
                  <span className="queues-sub muted">
                    QoS {entry.qos}
                    {entry.contentType && ` · ${entry.contentType}`}
                  </span>
                </td>
                <td className="queues-num" data-label="Size">
                  {sizeText(entry.sizeBytes)}
                </td>
                <td className="retained-preview" data-label="Preview">
                  <code>{cellPreview(entry)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {chosen && list && (
        <RetainedDetail
          key={`${list.realm}\u0000${chosen.topic}`}
          client={client}
          connectionId={connectionId}
          realm={list.realm}
          entry={chosen}
          onClose={() => setSelected(null)}
          reload={reload}
          remove={deletion}
        />
      )}

      {entries.length > 0 && (
        <section className="panel retained-bulk" aria-label="Delete all matching">
          <h4 className="ops-detail__sub">Delete all matching</h4>
          <div className="row-actions remove-confirm">
            <span className="muted small-inline" id="retained-bulk-hint">
              Clears every retained message of {realm} matching the filter, for good. Type the
              filter to confirm:
            </span>
            <input
              className="input remove-confirm__input"
              placeholder={filter}
              aria-label={`Type ${filter} to confirm`}
              aria-describedby="retained-bulk-hint"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              data-testid="retained-bulk-confirm"
            />
            <button
              type="button"
              className="button button--danger"
              disabled={deletion.busy || typed !== filter}
              onClick={deleteAll}
              data-testid="retained-bulk-delete"
            >
              Delete all matching {filter}
            </button>
          </div>
        </section>
      )}
    </Page>
  );
}
