/** One row of the virtualised dead-letter list: select box, origin, reason, time, payload preview. */
import { memo } from 'react';
import type { DeadLetter } from '../../../../shared/console-api-operations';
import { stamp } from './dead-letter-detail';

/** Fixed row height, px (the virtualiser's estimate; rows never grow). */
export const ROW_HEIGHT = 64;

export interface DeadLetterRowProps {
  entry: DeadLetter;
  top: number;
  selected: boolean;
  focused: boolean;
  onToggle: (id: string) => void;
  onFocus: (id: string) => void;
}

export const DeadLetterRow = memo(function DeadLetterRow({
  entry,
  top,
  selected,
  focused,
  onToggle,
  onFocus,
}: DeadLetterRowProps) {
  const { origin } = entry;
  return (
    <div
      role="listitem"
      className={`ops-row${focused ? ' ops-row--focused' : ''}${selected ? ' ops-row--selected' : ''}`}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
      data-testid="dlq-row"
      data-id={entry.id}
    >
      <input
        type="checkbox"
        className="ops-row__check"
        checked={selected}
        onChange={() => onToggle(entry.id)}
        aria-label={`Select ${entry.id}`}
      />
      <button type="button" className="ops-row__main" onClick={() => onFocus(entry.id)}>
        <span className="ops-row__line">
          {/* The consumer is its own box that does not shrink first: on a narrow screen the
              producer and event are cut, never the consumer the copy was meant for. */}
          <strong className="ops-row__origin">
            {origin.producer || '?'} · {origin.event || origin.key}
          </strong>{' '}
          <strong className="ops-row__consumer" data-testid="dlq-row-consumer">
            → {entry.consumer}
          </strong>
          {entry.replayCount > 0 && (
            <span className="ops-flag" data-testid="dlq-again">
              dead-lettered again ×{entry.replayCount}
            </span>
          )}
          <span className="ops-row__time ops-row__time--wide">{stamp(entry.deadLetteredAt)}</span>
        </span>
        <span className="ops-row__line muted">
          {/* On a narrow screen the time moves to this line, leaving the first to the origin. */}
          <span className="ops-row__time ops-row__time--narrow">{stamp(entry.deadLetteredAt)}</span>
          <span className="ops-row__reason">{entry.reason}</span>
          <code className="ops-row__payload">{entry.payload ?? '(payload omitted)'}</code>
        </span>
      </button>
    </div>
  );
});
