/**
 * Details of one dead letter: where it came from, why, when, its payload, and its actions. The
 * confirmation of a replay or discard of this entry is drawn in the actions' row, next to the
 * button that asked for it (issue 27: it used to open at the top of the page, out of view).
 */
import { useEffect, useRef, type ReactNode } from 'react';
import type { DeadLetter } from '../../../../shared/console-api-operations';
import { PayloadViewer } from '../../components/payload-viewer';

const STAMP = new Intl.DateTimeFormat('en-GB', { dateStyle: 'short', timeStyle: 'medium' });

/** Epoch ms as a local date-time; null → `—`. One shared formatter (rows call it often). */
export function stamp(ms: number | null): string {
  return ms === null ? '—' : STAMP.format(ms);
}

export interface DeadLetterDetailProps {
  entry: DeadLetter;
  busy: boolean;
  onClose: () => void;
  onAction: (kind: 'replay' | 'discard') => void;
  /** The pending confirmation of this entry's replay or discard, shown in the actions' row. */
  confirm?: ReactNode;
}

export function DeadLetterDetail({
  entry,
  busy,
  onClose,
  onAction,
  confirm,
}: DeadLetterDetailProps) {
  const { origin } = entry;
  const ref = useRef<HTMLElement>(null);
  // On a phone the details open below the list: bring them into view. A block body: current
  // Chromium's scrollIntoView returns a promise, which React would take for a cleanup function.
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest' });
  }, [entry.id]);
  return (
    <aside ref={ref} className="panel ops-detail" aria-label="Dead letter" data-testid="dlq-detail">
      <header className="ops-detail__header">
        <h3 className="section-title">Dead letter</h3>
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </header>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{entry.id}</code>
        </dd>
        <dt>Realm</dt>
        <dd>{entry.realm}</dd>
        <dt>Origin</dt>
        <dd data-testid="dlq-detail-origin">
          producer <strong>{origin.producer || '?'}</strong>, event{' '}
          <strong>{origin.event || '?'}</strong> (key <code>{origin.key}</code>)
        </dd>
        <dt>Consumer</dt>
        <dd>{entry.consumer}</dd>
        <dt>Reason</dt>
        <dd>{entry.reason}</dd>
        <dt>Dead-lettered</dt>
        <dd>{stamp(entry.deadLetteredAt)}</dd>
        <dt>Replays</dt>
        <dd data-testid="dlq-detail-replays">
          {entry.replayCount === 0
            ? 'never replayed'
            : `replayed ${entry.replayCount}× and dead-lettered again (first on ${stamp(entry.firstDeadLetteredAt)})`}
        </dd>
        <dt>Produced</dt>
        <dd>{stamp(entry.createdAt)}</dd>
        <dt>Expires</dt>
        <dd>{entry.expiresAt === null ? 'never' : stamp(entry.expiresAt)}</dd>
      </dl>
      <h4 className="ops-detail__sub">
        Payload{entry.payloadTruncated ? ' (cut: first 64 KiB shown)' : ''}
      </h4>
      {entry.payload === null ? (
        <p className="muted">The broker omitted this payload (larger than its page limit).</p>
      ) : (
        <PayloadViewer key={entry.id} text={entry.payload} testId="dlq-payload" />
      )}
      <div className="ops-wrap" data-testid="dlq-detail-actions">
        <button
          type="button"
          className="button button--primary"
          disabled={busy || Boolean(confirm)}
          onClick={() => onAction('replay')}
          data-testid="dlq-detail-replay"
        >
          Replay to {entry.consumer}
        </button>
        <button
          type="button"
          className="button button--danger"
          disabled={busy || Boolean(confirm)}
          onClick={() => onAction('discard')}
          data-testid="dlq-detail-discard"
        >
          Discard
        </button>
        {confirm}
      </div>
    </aside>
  );
}
