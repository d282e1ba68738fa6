/**
 * Dead letters: the broker's DLQ of one realm (or all), loaded page by page, in a virtualised
 * list (`@tanstack/react-virtual`) that stays smooth with 10,000+ entries; search in event,
 * consumer, reason and payload; origin and replay count per entry (entries dead-lettered again
 * flagged); a JSON viewer for the payload; replay or discard one or many with confirmation and a
 * cancellable progress bar; export as JSON lines; follow mode (use-dead-letter-follow.ts) keeps
 * the list live while the DLQ fills.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { DeadLetter } from '../../../../shared/console-api-operations';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { realmBatches } from './dead-letter-batches';
import { ConnectionProblem } from '../../components/connection-problem';
import { ErrorBanner } from '../../components/error-banner';
import { formatCount } from '../../format';
import { useAppStore } from '../../store/app-store';
import {
  ActionProgress,
  ConfirmAction,
  SelectionToolbar,
  type ActionKind,
} from './dead-letter-actions';
import { DeadLetterDetail, stamp } from './dead-letter-detail';
import { DeadLetterList } from './dead-letter-list';
import { DeadLettersHeader } from './dead-letters-header';
import { downloadText } from '../../download-text';
import {
  FIRST_PAGE,
  LOAD_PAGE,
  MAX_LOADED_ENTRIES,
  indexEntry,
  runBatches,
  searchEntries,
  toJsonLines,
  type BatchProgress,
  type IndexedDeadLetter,
} from './dead-letters-model';
import { useConnectionId } from '../../hooks/use-connection-id';
import { useDeadLetterFollow } from './use-dead-letter-follow';
import '../../styles/operations.css';

const VERB: Record<ActionKind, string> = { replay: 'Replay', discard: 'Discard' };

interface Running {
  kind: ActionKind;
  progress: BatchProgress;
  cancelling: boolean;
}

export function DeadLettersView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const statsRealms = useAppStore((s) => s.overviews[connectionId]?.stats?.realms);
  const realmNames = useMemo(
    () => [...new Set(['default', ...Object.keys(statsRealms ?? {})])].sort(),
    [statsRealms],
  );
  const [realm, setRealm] = useState('');
  const [entries, setEntries] = useState<IndexedDeadLetter[]>([]);
  const [loading, setLoading] = useState<{ loaded: number; total: number } | null>({
    loaded: 0,
    total: 0,
  });
  const [error, setError] = useState<string | null>(null);
  // Why the list could not be loaded (shown with what to do, instead of an empty list).
  const [loadError, setLoadError] = useState<ErrorInfo | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [focused, setFocused] = useState<string | null>(null);
  // `inDetail`: asked from one entry's detail, so confirmed there, next to its button.
  const [confirm, setConfirm] = useState<{
    kind: ActionKind;
    ids: string[];
    inDetail: boolean;
  } | null>(null);
  const [running, setRunning] = useState<Running | null>(null);
  const [generation, setGeneration] = useState(0);
  const [brokerDepth, setBrokerDepth] = useState<number | null>(null);
  const [follow, setFollow] = useState(false);
  const cancelRef = useRef(false);
  // Another connection: nothing loaded for the previous one applies (state adjusted while
  // rendering, so the old list never shows under the new connection).
  const [listedFor, setListedFor] = useState(connectionId);
  /** Forgets the loaded list, its selection and its errors. */
  const forgetList = (): void => {
    setEntries([]);
    setSelected(new Set());
    setFocused(null);
    setError(null);
    setLoadError(null);
    setLoading({ loaded: 0, total: 0 });
  };
  if (listedFor !== connectionId) {
    setListedFor(connectionId);
    forgetList();
    setBrokerDepth(null);
  }

  /** Forgets the loaded list and loads `nextRealm` (or the same realm again) from the start. */
  const reload = (nextRealm: string = realm): void => {
    forgetList();
    setRealm(nextRealm);
    setGeneration((g) => g + 1);
  };

  // Load every page (oldest first); a newer load (realm change, refresh) supersedes this one.
  useEffect(() => {
    let live = true;
    void (async () => {
      let cursor: string | null = null;
      let loaded = 0;
      do {
        const result = await client.api.listDeadLetters({
          connectionId,
          ...(realm ? { realm } : {}),
          cursor,
          limit: loaded === 0 ? FIRST_PAGE : LOAD_PAGE,
        });
        if (!live) return;
        if (!result.ok) {
          setLoadError(result.error);
          break;
        }
        const page = result.value.entries.map(indexEntry);
        loaded += page.length;
        setEntries((current) => current.concat(page));
        setLoading({ loaded, total: result.value.total });
        cursor = result.value.nextCursor;
      } while (cursor && loaded < MAX_LOADED_ENTRIES);
      if (live) setLoading(null);
    })();
    return () => {
      live = false;
    };
  }, [client, connectionId, realm, generation]);

  // The broker's DLQ depth from the metric samples, to say when the loaded list is out of date.
  useEffect(
    () =>
      client.api.on('metricsPoint', ({ connectionId: id, point }) => {
        if (id !== connectionId || !point.up) return;
        setBrokerDepth(realm ? (point.realms[realm]?.dlqDepth ?? 0) : point.dlqDepth);
      }),
    [client, connectionId, realm],
  );
  const stale =
    !follow && !loading && !running && brokerDepth !== null && brokerDepth !== entries.length;

  useDeadLetterFollow({
    client,
    connectionId,
    realm,
    enabled: follow && !loadError,
    lastId: loading || running ? undefined : (entries.at(-1)?.entry.id ?? null),
    onEntries: (page) => {
      if (loading || running) return;
      setEntries((current) => {
        const known = new Set(current.map((e) => e.entry.id));
        const fresh = page.filter((e) => !known.has(e.id)).map(indexEntry);
        if (fresh.length === 0) return current;
        return current.concat(fresh).slice(0, MAX_LOADED_ENTRIES);
      });
    },
    onGone: () => reload(),
  });

  const shown = useMemo(() => searchEntries(entries, query), [entries, query]);
  const focusedEntry = useMemo(
    () => (focused ? (entries.find((e) => e.entry.id === focused)?.entry ?? null) : null),
    [entries, focused],
  );

  const toggle = useCallback((id: string) => {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const focus = useCallback((id: string) => {
    setFocused(id);
    // A detail's pending confirmation belongs to the entry it was asked for.
    setConfirm((c) => (c?.inDetail ? null : c));
  }, []);

  const run = async (kind: ActionKind, ids: string[]): Promise<void> => {
    setConfirm(null);
    setNotice(null);
    cancelRef.current = false;
    setRunning({ kind, progress: { done: 0, total: ids.length }, cancelling: false });
    const realmOf = new Map(entries.map(({ entry }) => [entry.id, entry.realm]));
    const batches = realmBatches(client, kind, connectionId, realm, realmOf, ids);
    let settledCount = 0;
    try {
      await runBatches(batches.ordered, batches.call, {
        cancelled: () => cancelRef.current,
        onProgress: (progress) => setRunning((r) => (r ? { ...r, progress } : r)),
        onSettled: (settled) => {
          settledCount += settled.length;
          const gone = new Set(settled);
          setEntries((current) => current.filter((e) => !gone.has(e.entry.id)));
          setSelected((current) => new Set([...current].filter((id) => !gone.has(id))));
        },
      });
      const rest = ids.length - settledCount;
      setNotice(
        `${kind === 'replay' ? 'Replayed' : 'Discarded'} ${formatCount(settledCount)} of ${formatCount(ids.length)}` +
          (rest > 0 ? `; cancelled — the other ${formatCount(rest)} are still in the DLQ.` : '.'),
      );
    } catch (failure) {
      setError(
        `${VERB[kind]} stopped: ${(failure as Error).message}. Entries already handled are gone ` +
          'from the list; the rest are still in the DLQ — try again.',
      );
    } finally {
      setRunning(null);
    }
  };

  const exportShown = (): void => {
    const source: DeadLetter[] = selected.size
      ? entries.filter((e) => selected.has(e.entry.id)).map((e) => e.entry)
      : shown.map((e) => e.entry);
    downloadText(
      `dead-letters-${realm || 'all-realms'}-${new Date().toISOString().slice(0, 19)}.jsonl`,
      'application/x-ndjson',
      toJsonLines(source),
    );
  };

  const busy = running !== null;
  return (
    <main className="page page--wide" data-testid="dead-letters-view">
      <DeadLettersHeader
        loaded={entries.length}
        matching={shown.length}
        selected={selected.size}
        follow={follow}
        busy={busy}
        onFollow={setFollow}
        onRefresh={() => reload()}
        onExport={exportShown}
      />
      <ConnectionProblem
        error={loadError}
        connectionId={connectionId}
        what="its dead-letter queue"
        testId="dlq-credential-problem"
      />

      <div className="ops-toolbar">
        <label className="field">
          Realm
          <select
            value={realm}
            disabled={busy}
            onChange={(e) => reload(e.target.value)}
            data-testid="dlq-realm"
          >
            <option value="">All realms</option>
            {realmNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="field field--grow">
          Search event, consumer, reason, payload
          <input
            type="search"
            value={query}
            placeholder="e.g. order 42"
            onChange={(e) => setQuery(e.target.value)}
            data-testid="dlq-search"
          />
        </label>
      </div>

      <SelectionToolbar
        busy={busy}
        shown={shown.length}
        selected={selected.size}
        onSelectAll={() => setSelected(new Set(shown.map((e) => e.entry.id)))}
        onClear={() => setSelected(new Set())}
        onAction={(kind) => setConfirm({ kind, ids: [...selected], inDetail: false })}
      />

      <ErrorBanner title="Dead letters:" message={error} testId="dlq-error" />
      {notice && (
        <p className="ops-notice" role="status" data-testid="dlq-notice">
          {notice}
        </p>
      )}
      {stale && (
        <p className="ops-notice" role="status" data-testid="dlq-stale">
          The broker now holds {formatCount(brokerDepth)} dead letter{brokerDepth === 1 ? '' : 's'}{' '}
          {realm ? `in ${realm}` : 'in all realms'}; the list shows {formatCount(entries.length)}.{' '}
          <button type="button" className="button" onClick={() => reload()}>
            Load again
          </button>
        </p>
      )}
      {loading && (
        <div className="ops-progress" data-testid="dlq-loading">
          <span>
            Loading {formatCount(loading.loaded)}
            {loading.total ? ` of ${formatCount(loading.total)}` : ''}…
          </span>
          <progress max={loading.total || 1} value={loading.loaded} />
        </div>
      )}
      {confirm && !confirm.inDetail && (
        <ConfirmAction
          kind={confirm.kind}
          count={confirm.ids.length}
          onConfirm={() => void run(confirm.kind, confirm.ids)}
          onKeep={() => setConfirm(null)}
        />
      )}
      {running && (
        <ActionProgress
          {...running}
          onCancel={() => {
            cancelRef.current = true;
            setRunning((r) => (r ? { ...r, cancelling: true } : r));
          }}
        />
      )}

      {!loadError && (
        <>
          <div className="ops-dlq">
            <DeadLetterList
              shown={shown}
              empty={
                shown.length === 0 && !loading
                  ? entries.length === 0
                    ? 'No dead letters. Copies land here when a consumer does not ACK within its retries.'
                    : 'Nothing matches the search.'
                  : null
              }
              selected={selected}
              focused={focused}
              followTail={follow}
              onToggle={toggle}
              onFocus={focus}
            />
            {focusedEntry && (
              <DeadLetterDetail
                entry={focusedEntry}
                busy={busy}
                onClose={() => {
                  setFocused(null);
                  if (confirm?.inDetail) setConfirm(null);
                }}
                onAction={(kind) => setConfirm({ kind, ids: [focusedEntry.id], inDetail: true })}
                confirm={
                  confirm?.inDetail && confirm.ids[0] === focusedEntry.id ? (
                    <ConfirmAction
                      single={{ consumer: focusedEntry.consumer }}
                      kind={confirm.kind}
                      count={1}
                      onConfirm={() => void run(confirm.kind, confirm.ids)}
                      onKeep={() => setConfirm(null)}
                    />
                  ) : null
                }
              />
            )}
          </div>
          <p className="muted small">
            Loaded{' '}
            {entries.length >= MAX_LOADED_ENTRIES
              ? `the oldest ${formatCount(MAX_LOADED_ENTRIES)}`
              : 'all'}{' '}
            entries
            {entries[0] ? `; oldest dead-lettered ${stamp(entries[0].entry.deadLetteredAt)}` : ''}.
          </p>
        </>
      )}
    </main>
  );
}
