/**
 * "Move…" on a queue's detail (issue 27): sends the queue's ready messages — all of them, or
 * the ones selected in Peek — to another durable queue, of another consumer or under another
 * subscription key (`moveQueue`, the broker's `move_queue`). A confirmation step names what goes
 * where; the result line says how many moved and how many in-flight copies stayed.
 */
import { useState } from 'react';
import type { QueueRow } from '../../../../shared/console-api-queues';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import { ErrorBanner } from '../../components/error-banner';
import { formatCount } from '../../format';
import { useConsoleAction } from '../../hooks/use-console-action';

export interface QueueMoveProps {
  client: ConsoleClient;
  target: { connectionId: string; realm: string; consumer: string; key: string };
  ready: number;
  /** The other queues of the same key, offered as targets (online ones first). */
  peers?: readonly Pick<QueueRow, 'consumer' | 'online' | 'group'>[];
  /** Message ids selected in Peek (ready copies only). */
  selected: readonly string[];
  /** After a move: reload the table, clear Peek and the selection. */
  onMoved: () => Promise<void>;
}

type Kind = 'consumer' | 'event';

/** `online · group billing`, for a target suggestion. */
function peerText(p: Pick<QueueRow, 'online' | 'group'>): string {
  return `${p.online ? 'online' : 'offline'}${p.group ? ` · group ${p.group}` : ''}`;
}

export function QueueMove({
  client,
  target,
  peers = [],
  ready,
  selected,
  onMoved,
}: QueueMoveProps) {
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<Kind>('consumer');
  const [to, setTo] = useState('');
  const [onlySelected, setOnlySelected] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const action = useConsoleAction();
  const useSelection = onlySelected && selected.length > 0;
  const count = useSelection ? selected.length : ready;
  const name = to.trim();
  const where = kind === 'consumer' ? `consumer ${name}` : `key ${name}`;
  // Online members first: a move to an offline consumer waits for it to come back.
  const choices = [...new Map(peers.map((p) => [p.consumer, p])).values()]
    .sort((a, b) => Number(b.online) - Number(a.online) || (a.consumer < b.consumer ? -1 : 1))
    .slice(0, 20);

  const move = () => {
    setConfirming(false);
    void action.run(
      () =>
        confirmedCall(client.api, 'moveQueue', {
          ...target,
          to: kind === 'consumer' ? { consumer: name } : { event: name },
          ...(useSelection ? { ids: [...selected] } : {}),
        }),
      (v) => v.summary,
      onMoved,
    );
  };

  return (
    <>
      <h4 className="ops-detail__sub">Move</h4>
      <ErrorBanner title="Move:" message={action.error?.message} testId="queue-move-error" />
      {action.message && (
        <p className="action-line" role="status" data-testid="queue-move-message">
          {action.message}
        </p>
      )}
      {!open ? (
        <div className="row-actions">
          <button
            type="button"
            className="button"
            onClick={() => setOpen(true)}
            data-testid="queue-move-open"
          >
            Move…
          </button>
        </div>
      ) : (
        <form
          className="queue-move"
          onSubmit={(e) => {
            e.preventDefault();
            if (name && count > 0) setConfirming(true);
          }}
          data-testid="queue-move-form"
        >
          <fieldset className="queue-move__choice">
            <legend className="muted small">Move to the durable queue of</legend>
            <label>
              <input
                type="radio"
                name="queue-move-kind"
                checked={kind === 'consumer'}
                onChange={() => setKind('consumer')}
                data-testid="queue-move-kind-consumer"
              />{' '}
              another consumer (same key)
            </label>
            <label>
              <input
                type="radio"
                name="queue-move-kind"
                checked={kind === 'event'}
                onChange={() => setKind('event')}
                data-testid="queue-move-kind-event"
              />{' '}
              another subscription key (same consumer)
            </label>
          </fieldset>
          <input
            className="input"
            value={to}
            placeholder={kind === 'consumer' ? 'consumer name' : 'subscription key, e.g. fleet-job'}
            aria-label={kind === 'consumer' ? 'Target consumer' : 'Target subscription key'}
            onChange={(e) => setTo(e.target.value)}
            list={kind === 'consumer' && choices.length > 0 ? 'queue-move-peers' : undefined}
            data-testid="queue-move-target"
          />
          {kind === 'consumer' && choices.length > 0 && (
            <>
              <datalist id="queue-move-peers">
                {choices.map((p) => (
                  <option key={p.consumer} value={p.consumer}>
                    {peerText(p)}
                  </option>
                ))}
              </datalist>
              <p className="muted small" data-testid="queue-move-peers">
                Same key:{' '}
                {choices.map((p, i) => (
                  <span key={p.consumer}>
                    {i > 0 && ', '}
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => setTo(p.consumer)}
                      data-testid="queue-move-peer"
                    >
                      {p.consumer}
                    </button>{' '}
                    <span className="muted">({peerText(p)})</span>
                  </span>
                ))}
              </p>
            </>
          )}
          <fieldset className="queue-move__choice">
            <legend className="muted small">Which messages</legend>
            <label>
              <input
                type="radio"
                name="queue-move-scope"
                checked={!useSelection}
                onChange={() => setOnlySelected(false)}
                data-testid="queue-move-scope-all"
              />{' '}
              every ready message ({formatCount(ready)})
            </label>
            <label>
              <input
                type="radio"
                name="queue-move-scope"
                checked={useSelection}
                disabled={selected.length === 0}
                onChange={() => setOnlySelected(true)}
                data-testid="queue-move-scope-selected"
              />{' '}
              the {formatCount(selected.length)} selected in Peek
            </label>
          </fieldset>
          <div className="row-actions">
            <button
              type="submit"
              className="button button--primary"
              disabled={action.busy || !name || count === 0}
              data-testid="queue-move-submit"
            >
              Move {formatCount(count)}
            </button>
            <button
              type="button"
              className="button"
              onClick={() => {
                setOpen(false);
                setConfirming(false);
              }}
            >
              Cancel
            </button>
          </div>
          {confirming && (
            <ConfirmPanel
              confirmLabel="Move"
              tone="primary"
              onConfirm={move}
              onCancel={() => setConfirming(false)}
              testId="queue-move-confirm"
            >
              Move {formatCount(count)} ready message{count === 1 ? '' : 's'} of {target.consumer}{' '}
              to the queue of {where}? Each is stored there before it leaves this queue, with a new
              message id and its attempt count back at 0; in-flight messages stay.
            </ConfirmPanel>
          )}
        </form>
      )}
    </>
  );
}
