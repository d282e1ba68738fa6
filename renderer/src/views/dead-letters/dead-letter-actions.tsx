/**
 * The Dead letters view's selection toolbar, the confirmation of a replay/discard and its
 * cancellable progress bar.
 */
import { formatCount } from '../../format';
import type { BatchProgress } from './dead-letters-model';

export type ActionKind = 'replay' | 'discard';

const plural = (n: number): string => `${formatCount(n)} dead letter${n === 1 ? '' : 's'}`;

/**
 * `single`: one entry's detail asks — drawn inside its button row (not as a panel of its own)
 * and worded for that one entry, named by the consumer it goes back to.
 */
export function ConfirmAction({
  kind,
  count,
  onConfirm,
  onKeep,
  single,
}: {
  kind: ActionKind;
  count: number;
  onConfirm: () => void;
  onKeep: () => void;
  single?: { consumer: string };
}) {
  const question = single
    ? kind === 'replay'
      ? `Replay this dead letter to ${single.consumer}? It goes back to its queue and is delivered again.`
      : 'Discard this dead letter? It is deleted for good.'
    : kind === 'replay'
      ? `Replay ${plural(count)} to the consumer each was meant for? Each goes back to its queue and is delivered again.`
      : `Discard ${plural(count)}? They are deleted for good.`;
  return (
    <div
      className={single ? 'ops-confirm ops-confirm--inline' : 'panel ops-confirm'}
      role="alertdialog"
      aria-label="Confirm"
      data-testid="dlq-confirm"
    >
      <p>{question}</p>
      <div className="ops-wrap">
        <button
          type="button"
          className={`button ${kind === 'replay' ? 'button--primary' : 'button--danger'}`}
          onClick={onConfirm}
          data-testid="dlq-confirm-yes"
        >
          {kind === 'replay' ? 'Replay' : 'Discard'}
          {single ? '' : ` ${formatCount(count)}`}
        </button>
        <button type="button" className="button" onClick={onKeep}>
          {single ? 'Keep it' : 'Keep them'}
        </button>
      </div>
    </div>
  );
}

export function ActionProgress({
  kind,
  progress,
  cancelling,
  onCancel,
}: {
  kind: ActionKind;
  progress: BatchProgress;
  cancelling: boolean;
  onCancel: () => void;
}) {
  return (
    <div className="ops-progress" data-testid="dlq-progress">
      <span>
        {kind === 'replay' ? 'Replaying' : 'Discarding'} {formatCount(progress.done)} of{' '}
        {formatCount(progress.total)}…
      </span>
      <progress max={progress.total || 1} value={progress.done} />
      <button
        type="button"
        className="button"
        disabled={cancelling}
        title="Stops after the batch in flight; entries not yet handled stay in the DLQ"
        onClick={onCancel}
        data-testid="dlq-cancel"
      >
        {cancelling ? 'Cancelling…' : 'Cancel'}
      </button>
    </div>
  );
}

/** Select all shown / clear, and replay or discard the selection (asks `ConfirmAction` first). */
export function SelectionToolbar({
  busy,
  shown,
  selected,
  onSelectAll,
  onClear,
  onAction,
}: {
  busy: boolean;
  shown: number;
  selected: number;
  onSelectAll: () => void;
  onClear: () => void;
  onAction: (kind: ActionKind) => void;
}) {
  return (
    <div className="ops-toolbar">
      <button
        type="button"
        className="button"
        disabled={busy || shown === 0}
        onClick={onSelectAll}
        data-testid="dlq-select-all"
      >
        Select all shown ({formatCount(shown)})
      </button>
      <button type="button" className="button" disabled={busy || selected === 0} onClick={onClear}>
        Clear selection
      </button>
      <button
        type="button"
        className="button button--primary"
        disabled={busy || selected === 0}
        onClick={() => onAction('replay')}
        data-testid="dlq-replay-selected"
      >
        Replay selected
      </button>
      <button
        type="button"
        className="button button--danger"
        disabled={busy || selected === 0}
        onClick={() => onAction('discard')}
        data-testid="dlq-discard-selected"
      >
        Discard selected
      </button>
    </div>
  );
}
