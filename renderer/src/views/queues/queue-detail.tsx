/**
 * One queue's detail in the Queues view: its facts, Peek (pages of its stored copies, read
 * without changing them: `peekQueue`; ready ones can be ticked for a move or for Discard
 * selected, `queue-discard.tsx`), Move (`queue-move.tsx`), In flight with Release now
 * (`queue-in-flight.tsx`) and Purge (deletes all its ready copies, `purgeQueue`) behind a
 * type-the-consumer's-name confirmation, as realm removal has. In-flight copies are marked in the peek and survive a purge (their ACK is awaited).
 */
import { useEffect, useRef, useState } from 'react';
import type { QueuePeek, QueueRow } from '../../../../shared/console-api-queues';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import { formatCount, formatCountOf } from '../../format';
import { useConsoleAction } from '../../hooks/use-console-action';
import { PayloadViewer } from '../../components/payload-viewer';
import { QueueDiscard } from './queue-discard';
import { QueueInFlight } from './queue-in-flight';
import { QueueMove } from './queue-move';
import { QueueRateChart } from './queue-rate-chart';
import { ageText, sizeText } from './queues-model';
import '../../styles/realms.css';

/** Copies per Peek page. */
const PEEK_PAGE = 20;

/**
 * A peeked copy's payload: the one-line preview, or Text / Hex of it on demand. The preview is
 * the payload's JSON cut by the host, so it is shown as text, not as a tree.
 */
function PeekPayload({ preview, truncated }: { preview: string; truncated: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      {open ? (
        <PayloadViewer
          text={preview}
          tabs={['text', 'hex']}
          cutNote={truncated ? 'The preview is cut: the start of the payload is shown.' : null}
          testId="queue-peek-payload"
        />
      ) : (
        <pre className="queue-peek__payload">
          {preview}
          {truncated && '…'}
        </pre>
      )}
      <button
        type="button"
        className="payload-more"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="queue-peek-view"
      >
        {open ? 'hide Text / Hex' : 'Text / Hex'}
      </button>
    </>
  );
}

export interface QueueDetailProps {
  client: ConsoleClient;
  connectionId: string;
  row: QueueRow;
  /** The other queues of the same realm and key: the targets a move is likely to want. */
  peers?: readonly QueueRow[];
  /** When the table's data was read (a new point of the rate chart). */
  fetchedAt: number;
  onClose: () => void;
  /** Reloads the table (after a purge). */
  reload: () => Promise<void>;
}

export function QueueDetail({
  client,
  connectionId,
  row,
  peers = [],
  fetchedAt,
  onClose,
  reload,
}: QueueDetailProps) {
  const [peek, setPeek] = useState<QueuePeek | null>(null);
  const [typed, setTyped] = useState('');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const peekAction = useConsoleAction();
  const purgeAction = useConsoleAction();
  const ref = useRef<HTMLElement>(null);
  // Opened below the table: bring it into view (on a phone it starts off-screen).
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  const target = { connectionId, realm: row.realm, consumer: row.consumer, key: row.key };

  const loadPeek = (cursor: string | null) =>
    void peekAction
      .run(
        () => client.api.peekQueue({ ...target, limit: PEEK_PAGE, ...(cursor ? { cursor } : {}) }),
        () => '',
      )
      .then((value) => {
        if (!value) return;
        setPeek(value);
        setSelected(new Set());
      });

  // The ticked ready copies of the page shown (a new peek clears the ticks).
  const picked = [...selected].filter((id) => peek?.messages.some((m) => m.msgId === id));
  // After a move or a discard the page shown is out of date: peek again to see what is left.
  const afterChange = async () => {
    setPeek(null);
    setSelected(new Set());
    await reload();
  };

  const purge = () =>
    void purgeAction
      .run(
        () => confirmedCall(client.api, 'purgeQueue', { ...target, confirmName: typed }),
        (v) => v.summary,
        reload,
      )
      .then((value) => {
        if (!value) return;
        setTyped('');
        setPeek(null);
      });

  return (
    <section
      ref={ref}
      className="panel queue-detail"
      data-testid="queue-detail"
      aria-label="Queue detail"
    >
      <div className="queue-detail__head">
        <div className="queue-detail__title">
          <h3 className="section-title">{row.consumer}</h3>
          <p className="muted small">
            queue <code>{row.key}</code>
          </p>
        </div>
        <button type="button" className="button" onClick={onClose} data-testid="queue-close">
          Close
        </button>
      </div>
      <dl className="facts queue-facts">
        <dt>Realm</dt>
        <dd>{row.realm}</dd>
        <dt>Consumer id</dt>
        <dd>
          <code>{row.consumerId}</code>
        </dd>
        {row.group && (
          <>
            <dt>Group</dt>
            <dd>{row.group}</dd>
          </>
        )}
        <dt>State</dt>
        <dd>
          <StatusBadge
            label={row.online ? 'online' : 'offline'}
            tone={row.online ? 'ok' : 'idle'}
          />
          {!row.subscribed && <span className="muted"> · no subscription left</span>}
        </dd>
        <dt>Ready</dt>
        <dd data-testid="queue-detail-ready">{formatCount(row.ready)}</dd>
        <dt>In flight</dt>
        <dd>{formatCount(row.inFlight)}</dd>
        <dt>Oldest ready</dt>
        <dd>{ageText(row.oldestReadyAgeMs)}</dd>
      </dl>

      <QueueRateChart row={row} fetchedAt={fetchedAt} />

      <h4 className="ops-detail__sub">Peek</h4>
      <p className="muted small queue-detail__hint">
        Reads the stored messages oldest first without delivering them or counting an attempt.
      </p>
      <div className="row-actions">
        <button
          type="button"
          className="button"
          disabled={peekAction.busy}
          onClick={() => loadPeek(null)}
          data-testid="queue-peek"
        >
          {peek ? 'Peek again from the oldest' : 'Peek'}
        </button>
        {peek?.nextCursor && (
          <button
            type="button"
            className="button"
            disabled={peekAction.busy}
            onClick={() => loadPeek(peek.nextCursor)}
            data-testid="queue-peek-next"
          >
            Next {PEEK_PAGE}
          </button>
        )}
      </div>
      <ErrorBanner title="Peek:" message={peekAction.error?.message} testId="queue-peek-error" />
      {peek && peek.messages.length === 0 && (
        <p className="ops-empty" data-testid="queue-peek-empty">
          No stored message.
        </p>
      )}
      {peek && peek.messages.length > 0 && (
        <ol className="queue-peek" data-testid="queue-peek-list">
          {peek.messages.map((m) => (
            <li key={m.msgId} className="queue-peek__item" data-testid="queue-peek-item">
              <div className="queue-peek__facts">
                {m.inFlight ? (
                  <code>{m.msgId}</code>
                ) : (
                  <label className="queue-select">
                    <input
                      type="checkbox"
                      checked={selected.has(m.msgId)}
                      onChange={() => toggle(m.msgId)}
                      aria-label={`Select ${m.msgId} to move or discard`}
                      data-testid="queue-peek-select"
                    />
                    <code>{m.msgId}</code>
                  </label>
                )}
                <span>{m.event}</span>
                <span>from {m.producer || '—'}</span>
                <span>{sizeText(m.size)}</span>
                <span>age {ageText(m.ageMs)}</span>
                <span>
                  {m.attempts === 0 ? 'never delivered' : formatCountOf(m.attempts, 'attempt')}
                </span>
                {m.inFlight && <StatusBadge label="in flight" tone="busy" />}
              </div>
              <PeekPayload preview={m.preview} truncated={m.truncated} />
            </li>
          ))}
        </ol>
      )}

      <QueueDiscard
        client={client}
        target={target}
        selectable={peek?.messages.some((m) => !m.inFlight) ?? false}
        selected={picked}
        onDiscarded={afterChange}
      />

      <QueueMove
        client={client}
        target={target}
        peers={peers}
        ready={row.ready}
        selected={picked}
        onMoved={afterChange}
      />
      <QueueInFlight client={client} target={target} inFlight={row.inFlight} reload={reload} />

      <h4 className="ops-detail__sub">Purge</h4>
      <ErrorBanner title="Purge:" message={purgeAction.error?.message} testId="queue-purge-error" />
      {purgeAction.message && (
        <p className="action-line" role="status" data-testid="queue-purge-message">
          {purgeAction.message}
        </p>
      )}
      <div className="row-actions remove-confirm">
        <span className="muted small-inline" id="queue-purge-hint">
          Deletes the ready messages (in-flight ones stay). Type the consumer&apos;s name to
          confirm:
        </span>
        <input
          className="input remove-confirm__input"
          placeholder={row.consumer}
          aria-label={`Type ${row.consumer} to confirm the purge`}
          aria-describedby="queue-purge-hint"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          data-testid="queue-purge-confirm"
        />
        <button
          type="button"
          className="button button--danger"
          disabled={purgeAction.busy || typed !== row.consumer || row.ready === 0}
          onClick={purge}
          data-testid="queue-purge"
        >
          Purge {formatCount(row.ready)} ready
        </button>
      </div>
    </section>
  );
}
