/**
 * Topic tree (issue 27, MQTT Explorer's signature): the topics a realm carries as a hierarchy
 * split at `/`, built by the console host from live traffic and the realm's retained messages
 * (`topicTreeStart`, `topicTreeUpdate` once a second), each node with its subtree's message
 * count and rate, its last value and age; a filter; a topic's detail with its history and a
 * chart of its numeric fields. The tree starts on opening the view and stops on leaving it.
 */
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { RetainedSeedState } from '../../../../shared/console-api-topics';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { Result } from '../../../../shared/console-api';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { TextField } from '../../components/form-fields';
import { Page } from '../../components/page';
import { StatusBadge } from '../../components/status-badge';
import { formatCount } from '../../format';
import { useConnectionId } from '../../hooks/use-connection-id';
import { usePageLeave } from '../../hooks/use-page-leave';
import '../../styles/operations.css';
import '../../styles/topics.css';
import { RealmOptions } from '../tap/tap-row';
import { TopicDetailPanel } from './topic-detail';
import { TopicTreeList } from './topic-tree-list';
import { TopicTreeModel, topicRateText } from './topic-tree-model';

const RETAINED_NOTES: Record<RetainedSeedState, string | null> = {
  loading: 'Reading the retained messages…',
  ok: null,
  unsupported:
    'This broker does not offer retained messages: the tree is built from live traffic only.',
  'mqtt-off': 'This broker runs without MQTT, so it holds no retained messages.',
  error: 'The retained messages could not be read: the tree is built from live traffic only.',
};

export function TopicsView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const model = useMemo(() => new TopicTreeModel(), []);
  const snap = useSyncExternalStore(model.subscribe, model.snapshot);
  const [realm, setRealm] = useState('default');
  const [treeId, setTreeId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  /** Bumped whenever the view's tree is given up, so a start still in flight stops itself. */
  const generationRef = useRef(0);
  const running = treeId !== null && snap.update?.state !== 'stopped';

  useEffect(() => client.api.on('topicTreeUpdate', (u) => model.apply(u)), [client, model]);

  /** Shows the tree a start answered with, unless the view gave it up meanwhile. */
  const adopt = useCallback(
    (result: Result<{ treeId: string }>, generation: number): void => {
      // The view left (or restarted) while this tree was starting: it is nobody's.
      if (generation !== generationRef.current) {
        if (result.ok) void client.api.topicTreeStop({ connectionId, treeId: result.value.treeId });
        return;
      }
      if (result.ok) {
        model.reset(result.value.treeId);
        setTreeId(result.value.treeId);
      } else setError(result.error);
      setBusy(false);
    },
    [client, connectionId, model],
  );
  const begin = (name: string): Promise<void> => {
    const generation = generationRef.current;
    return client.api
      .topicTreeStart({ connectionId, realm: name })
      .then((result) => adopt(result, generation));
  };
  const start = (name: string): Promise<void> => {
    setBusy(true);
    setError(null);
    setSelected(null);
    return begin(name);
  };
  const stop = useCallback(async (): Promise<void> => {
    const id = model.currentTreeId;
    if (!id) return;
    setBusy(true);
    const result = await client.api.topicTreeStop({ connectionId, treeId: id });
    if (!result.ok) setError(result.error);
    setTreeId(null);
    setBusy(false);
  }, [client, connectionId, model]);

  const stopCurrent = useCallback(() => {
    const id = model.currentTreeId;
    if (id) void client.api.topicTreeStop({ connectionId, treeId: id });
  }, [client, connectionId, model]);
  // Closing the tab stops the tree too (another console page may keep the host's sweep away).
  usePageLeave(stopCurrent);

  // Opening the view shows the default realm's tree; leaving it stops the tree.
  useEffect(() => {
    const generation = ++generationRef.current;
    void client.api
      .topicTreeStart({ connectionId, realm: 'default' })
      .then((result) => adopt(result, generation));
    return () => {
      generationRef.current += 1;
      stopCurrent();
      model.reset(null);
    };
  }, [client, connectionId, model, adopt, stopCurrent]);

  const onToggle = useCallback((path: string) => model.toggle(path), [model]);
  const onOpen = useCallback((path: string) => setSelected((s) => (s === path ? null : path)), []);
  const update = snap.update;
  const note = update ? RETAINED_NOTES[update.retained] : null;
  const empty =
    snap.rows.length > 0
      ? null
      : filter.trim() !== '' && (update?.topics ?? 0) > 0
        ? 'No topic matches the filter.'
        : running
          ? 'No messages yet: topics appear here as they are published.'
          : 'The tree is stopped.';

  return (
    <Page
      testId="topics-view"
      title="Topic tree"
      intro={
        <>
          The topics of a realm as a tree, from live traffic and retained messages. The console
          subscribes without ACK, so consumers are not affected.
        </>
      }
      aside={
        <StatusBadge
          label={running ? 'watching' : 'stopped'}
          tone={running ? 'ok' : 'idle'}
          testId="topics-state"
        />
      }
    >
      <ErrorBanner title="Topic tree failed:" message={error?.message} testId="topics-error" />
      <ErrorBanner
        title="Topic tree stopped:"
        message={update?.error?.message}
        testId="topics-stopped-error"
      />
      <form
        className="panel topics-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy && realm.trim() !== '') void (running ? stop() : start(realm.trim()));
        }}
      >
        <RealmOptions connectionId={connectionId} />
        <TextField
          label="Realm"
          list="tap-realms"
          value={realm}
          onValue={setRealm}
          testId="topics-realm"
          disabled={running}
        />
        <button
          type="submit"
          className={`button${running ? '' : ' button--primary'}`}
          disabled={busy || realm.trim() === ''}
          data-testid={running ? 'topics-stop' : 'topics-start'}
        >
          {running ? 'Stop' : 'Show tree'}
        </button>
        <TextField
          label="Filter topics"
          fieldClass="topics-form__filter"
          placeholder="part of a topic, e.g. kitchen"
          value={filter}
          onValue={(text) => {
            setFilter(text);
            model.setFilter(text);
          }}
          testId="topics-filter"
        />
      </form>
      {update && (
        <p className="muted topics-stats" data-testid="topics-stats" data-topics={update.topics}>
          {formatCount(update.topics)} topics · {formatCount(update.received)} messages ·{' '}
          {topicRateText(update.ratePerSec) || '0/s'}
          {update.retainedSeeded > 0 && ` · ${formatCount(update.retainedSeeded)} retained`}
          {update.overflow > 0 &&
            ` · ${formatCount(update.overflow)} messages on topics past the cap not shown`}
        </p>
      )}
      {note && (
        <p className="muted topics-note" data-testid="topics-retained-note">
          {note}
        </p>
      )}
      <div className={`topics-body${selected ? ' topics-body--detail' : ''}`}>
        <TopicTreeList
          rows={snap.rows}
          now={update?.at ?? 0}
          selected={selected}
          empty={empty}
          onToggle={onToggle}
          onOpen={onOpen}
        />
        {selected && treeId && (
          <TopicDetailPanel
            key={selected}
            client={client}
            connectionId={connectionId}
            treeId={treeId}
            topic={selected}
            running={running}
            seen={(model.find(selected)?.own ?? null) !== null}
            onClose={() => setSelected(null)}
          />
        )}
      </div>
    </Page>
  );
}
