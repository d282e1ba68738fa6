/**
 * "Discard selected" under a queue's Peek (issue 27): deletes the ready messages ticked in the
 * peek list and no other (`purgeQueue` with `ids`, the broker's `discard_queued`), where Purge
 * deletes them all. A confirmation step names how many and for whom; the host asks its own
 * confirmation and Activity records the command. The result line says how many went, and how
 * many were no longer queued (ACKed or moved since the peek).
 */
import { useState } from 'react';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import { ErrorBanner } from '../../components/error-banner';
import { formatCount } from '../../format';
import { useConsoleAction } from '../../hooks/use-console-action';

export interface QueueDiscardProps {
  client: ConsoleClient;
  target: { connectionId: string; realm: string; consumer: string; key: string };
  /** Whether Peek shows ready messages to tick; without, only the last result is shown
   * (a discard clears Peek, and its result line must outlive it). */
  selectable: boolean;
  /** Message ids selected in Peek (ready copies only). */
  selected: readonly string[];
  /** After a discard: reload the table, clear Peek and the selection. */
  onDiscarded: () => Promise<void>;
}

export function QueueDiscard({
  client,
  target,
  selectable,
  selected,
  onDiscarded,
}: QueueDiscardProps) {
  const [confirming, setConfirming] = useState(false);
  const action = useConsoleAction();
  const n = selected.length;
  const messages = `${formatCount(n)} selected message${n === 1 ? '' : 's'}`;

  const discard = () => {
    setConfirming(false);
    void action.run(
      () => confirmedCall(client.api, 'purgeQueue', { ...target, ids: [...selected] }),
      (v) => v.summary,
      onDiscarded,
    );
  };

  return (
    <div className="queue-discard" data-testid="queue-discard">
      <ErrorBanner title="Discard:" message={action.error?.message} testId="queue-discard-error" />
      {action.message && (
        <p className="action-line" role="status" data-testid="queue-discard-message">
          {action.message}
        </p>
      )}
      {!selectable ? null : confirming ? (
        <ConfirmPanel
          confirmLabel={`Discard ${messages}`}
          onConfirm={discard}
          onCancel={() => setConfirming(false)}
          testId="queue-discard-confirm"
        >
          Deletes the {messages} of {target.consumer} for good; the other messages stay queued.
        </ConfirmPanel>
      ) : (
        <div className="row-actions">
          <button
            type="button"
            className="button button--danger"
            disabled={action.busy || n === 0}
            onClick={() => setConfirming(true)}
            data-testid="queue-discard-selected"
          >
            Discard {n > 0 ? messages : 'selected'}
          </button>
          {n === 0 && (
            <span className="muted small-inline">Tick ready messages above to discard them.</span>
          )}
        </div>
      )}
    </div>
  );
}
