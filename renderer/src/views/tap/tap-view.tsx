/**
 * Live tap: subscribe to a topic pattern or a producer's event in a realm and watch messages
 * arrive (newest first, capped, sampled by the host above a rate), with pause, clear and a
 * filter; below, the test publisher (publish-form.tsx).
 */
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import {
  TAP_DEFAULT_MAX_RATE,
  type TapMessage,
  type TapTarget,
} from '../../../../shared/console-api-tap';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import { formatCount } from '../../format';
import '../../styles/tap.css';
import { PublishForm } from './publish-form';
import { RealmOptions, TapRow, cutNote, label } from './tap-row';
import { downloadText } from '../../download-text';
import { tapExportName, tapRowsToCsv, tapRowsToJson } from './tap-export';
import {
  TAP_RING_CAPACITY,
  TapModel,
  describeTapAccess,
  describeTapTarget,
  tapEmptyText,
} from './tap-model';
import { useConnectionId } from '../../hooks/use-connection-id';
import { usePageLeave } from '../../hooks/use-page-leave';
import { TextField } from '../../components/form-fields';
import { Page } from '../../components/page';
import { PayloadViewer } from '../../components/payload-viewer';
import { PayloadDiff } from '../../components/payload-diff';

type Mode = 'topic' | 'event';

export function TapView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const model = useMemo(() => new TapModel(), []);
  const snap = useSyncExternalStore(model.subscribe, model.snapshot);
  const [realm, setRealm] = useState('default');
  const [mode, setMode] = useState<Mode>('topic');
  const [pattern, setPattern] = useState('#');
  const [producer, setProducer] = useState('TYO-MQ-ALL');
  const [event, setEvent] = useState('');
  const [rate, setRate] = useState(String(TAP_DEFAULT_MAX_RATE));
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
  /** What the running tap subscribed to (the form fields may be edited once it stops). */
  const [tapped, setTapped] = useState<TapTarget | null>(null);
  /** The row whose payload is open below the list, by `seq`. */
  const [openSeq, setOpenSeq] = useState<number | null>(null);
  /** Up to two rows picked for the diff, by `seq`, oldest pick first. */
  const [picked, setPicked] = useState<number[]>([]);
  const onOpen = useCallback((seq: number) => setOpenSeq((o) => (o === seq ? null : seq)), []);
  const onPick = useCallback(
    (seq: number, on: boolean) =>
      // A third pick replaces the older of the two.
      setPicked((p) =>
        on ? [...p.filter((s) => s !== seq), seq].slice(-2) : p.filter((s) => s !== seq),
      ),
    [],
  );

  useEffect(() => client.api.on('tapBatch', (batch) => model.apply(batch)), [client, model]);
  const stopRunning = useCallback(() => {
    const tapId = model.snapshot().info?.tapId;
    if (tapId && model.snapshot().running) void client.api.tapStop({ connectionId, tapId });
  }, [client, model, connectionId]);
  // Closing the tab stops its tap too (another console page may keep the host's sweep away).
  usePageLeave(stopRunning);
  // Leaving the view stops its tap.
  useEffect(
    () => () => {
      stopRunning();
      model.dispose();
    },
    [model, stopRunning],
  );

  const start = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    const target: TapTarget =
      mode === 'topic'
        ? { kind: 'topic', pattern: pattern.trim() }
        : { kind: 'event', producer: producer.trim(), event: event.trim() };
    const maxRatePerSec = Math.max(
      1,
      Math.min(2_000, Math.round(Number(rate) || TAP_DEFAULT_MAX_RATE)),
    );
    const result = await client.api.tapStart({
      connectionId,
      realm: realm.trim(),
      target,
      maxRatePerSec,
    });
    if (result.ok) {
      model.started(result.value);
      setTapped(target);
    } else setError(result.error);
    setBusy(false);
  };

  const stop = async (): Promise<void> => {
    const tapId = snap.info?.tapId;
    if (!tapId) return;
    setBusy(true);
    const result = await client.api.tapStop({ connectionId, tapId });
    model.stopped();
    if (!result.ok) setError(result.error);
    setBusy(false);
  };

  const exportRows = (kind: 'json' | 'csv'): void => {
    const rows = model.kept();
    const now = Date.now();
    const name = tapExportName(snap.info?.realm, now, kind);
    if (kind === 'json') {
      downloadText(name, 'application/json', tapRowsToJson(rows, snap.info, now));
    } else downloadText(name, 'text/csv;charset=utf-8', tapRowsToCsv(rows));
  };

  const emptyText = tapEmptyText(snap);
  // Rows leave the ring (capacity, Clear): an open or picked row that is gone is dropped.
  const openMessage = openSeq === null ? undefined : snap.rows.find((m) => m.seq === openSeq);
  const pickedMessages = picked
    .map((seq) => snap.rows.find((m) => m.seq === seq))
    .filter((m): m is TapMessage => m !== undefined);
  const [first, second] = pickedMessages;

  const canStart =
    !busy &&
    realm.trim() !== '' &&
    (mode === 'topic' ? pattern.trim() !== '' : producer.trim() !== '' && event.trim() !== '');

  return (
    <Page
      testId="tap-view"
      title="Live tap"
      intro={
        <>
          Watch a realm&apos;s messages as they are delivered. The console subscribes without ACK,
          so consumers are not affected.
        </>
      }
      aside={
        <StatusBadge
          label={snap.running ? (snap.paused ? 'paused' : 'tapping') : 'stopped'}
          tone={snap.running ? (snap.paused ? 'busy' : 'ok') : 'idle'}
          testId="tap-state"
        />
      }
    >
      <ErrorBanner title="Tap failed:" message={error?.message} testId="tap-error" />
      <ErrorBanner title="Tap stopped:" message={snap.error?.message} testId="tap-stopped-error" />

      <form
        className="panel tap-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (canStart && !snap.running) void start();
        }}
      >
        <RealmOptions connectionId={connectionId} />
        <TextField
          label="Realm"
          list="tap-realms"
          value={realm}
          onValue={setRealm}
          testId="tap-realm"
          disabled={snap.running}
        />
        <label className="field">
          Subscribe to
          <select
            value={mode}
            onChange={(e) => setMode(e.target.value as Mode)}
            data-testid="tap-mode"
            disabled={snap.running}
          >
            <option value="topic">Topic pattern</option>
            <option value="event">Producer / event</option>
          </select>
        </label>
        {mode === 'topic' ? (
          <TextField
            label="Pattern (+ one level, # the rest)"
            fieldClass="field--grow"
            value={pattern}
            onValue={setPattern}
            testId="tap-pattern"
            disabled={snap.running}
          />
        ) : (
          <>
            <TextField
              label="Producer (TYO-MQ-ALL = any)"
              fieldClass="field--grow"
              value={producer}
              onValue={setProducer}
              testId="tap-producer"
              disabled={snap.running}
            />
            <TextField
              label="Event (TM-ALL = every event)"
              fieldClass="field--grow"
              value={event}
              onValue={setEvent}
              testId="tap-event"
              disabled={snap.running}
            />
          </>
        )}
        <TextField
          label="Show at most / s"
          fieldClass="tap-form__rate"
          type="number"
          min={1}
          max={2000}
          value={rate}
          onValue={setRate}
          testId="tap-rate"
          disabled={snap.running}
        />
        <div className="tap-form__actions">
          {snap.running ? (
            <button
              type="button"
              className="button"
              onClick={() => void stop()}
              disabled={busy}
              data-testid="tap-stop"
            >
              Stop
            </button>
          ) : (
            <button
              type="submit"
              className="button button--primary"
              disabled={!canStart}
              data-testid="tap-start"
            >
              {busy ? 'Starting…' : 'Start tap'}
            </button>
          )}
        </div>
      </form>

      <div className="tap-toolbar">
        <button
          type="button"
          className="button"
          onClick={() => model.setPaused(!snap.paused)}
          disabled={!snap.running}
          data-testid="tap-pause"
        >
          {snap.paused ? 'Resume' : 'Pause'}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            model.clear();
            setOpenSeq(null);
            setPicked([]);
          }}
          data-testid="tap-clear"
        >
          Clear
        </button>
        <input
          className="tap-toolbar__filter"
          placeholder="Filter event, producer, payload"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            model.setFilter(e.target.value);
          }}
          data-testid="tap-filter"
          aria-label="Filter"
        />
        <span className="tap-toolbar__export">
          <button
            type="button"
            className="button"
            onClick={() => exportRows('json')}
            disabled={snap.held === 0}
            data-testid="tap-export-json"
            title="Download the kept messages that pass the filter"
          >
            Export JSON
          </button>
          <button
            type="button"
            className="button"
            onClick={() => exportRows('csv')}
            disabled={snap.held === 0}
            data-testid="tap-export-csv"
            title="Download the kept messages that pass the filter"
          >
            Export CSV
          </button>
        </span>
        <p
          className="muted tap-toolbar__stats"
          data-testid="tap-stats"
          data-received={snap.received}
        >
          {formatCount(snap.received)} received · {formatCount(snap.ratePerSec)}/s ·{' '}
          {formatCount(snap.sampledOut)} sampled out · {snap.held}/{TAP_RING_CAPACITY} kept
          {snap.paused &&
            snap.missedWhilePaused > 0 &&
            ` · ${formatCount(snap.missedWhilePaused)} not shown (paused)`}
        </p>
      </div>

      {snap.info && (
        <p className="muted tap-info" data-testid="tap-info">
          Realm {snap.info.realm}
          {tapped && ` · ${describeTapTarget(tapped)}`} · access:{' '}
          {describeTapAccess(snap.info.access)}
        </p>
      )}

      <ol className="tap-list" data-testid="tap-list" data-rows={snap.rows.length}>
        {snap.rows.map((m) => (
          <TapRow
            key={m.seq}
            message={m}
            open={m.seq === openSeq}
            picked={picked.includes(m.seq)}
            onOpen={onOpen}
            onPick={onPick}
          />
        ))}
      </ol>
      {first && !second && (
        <p className="muted tap-pick-hint" data-testid="tap-pick-hint">
          Pick one more message to compare it with {label(first)}.
        </p>
      )}
      {first && second && (
        <PayloadDiff
          a={first.payload}
          b={second.payload}
          aLabel={label(first)}
          bLabel={label(second)}
          onClose={() => setPicked([])}
          testId="tap-diff"
        />
      )}
      {openMessage && (
        <section className="panel tap-message" aria-label="Message" data-testid="tap-message">
          <header className="tap-message__header">
            <h3 className="section-title tap-message__title">
              {openMessage.event} <span className="muted">from {openMessage.from}</span>
            </h3>
            <button type="button" className="button" onClick={() => setOpenSeq(null)}>
              Close
            </button>
          </header>
          <p className="muted tap-message__facts">
            {new Date(openMessage.at).toLocaleTimeString('en-GB')}
            {openMessage.msgId && ` · message id ${openMessage.msgId}`}
          </p>
          <PayloadViewer
            key={openMessage.seq}
            text={openMessage.payload}
            enc={openMessage.enc ?? null}
            cutNote={cutNote(openMessage)}
            testId="tap-payload"
          />
        </section>
      )}
      {emptyText && (
        <p className="panel muted" data-testid="tap-empty">
          {emptyText}
        </p>
      )}

      <PublishForm
        client={client}
        connectionId={connectionId}
        defaultRealm={snap.running && snap.info ? snap.info.realm : realm.trim()}
      />
    </Page>
  );
}
