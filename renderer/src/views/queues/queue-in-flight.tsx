/**
 * "In flight" on a queue's detail (issue 27): the copies sent and not yet ACKed (or waiting for
 * a retry), with their attempt number and when their ACK wait ends or their retry is due
 * (`peekQueue` with `state: "in_flight"`), and "Release now" (`releaseInFlight`, the broker's
 * `release_in_flight`): for a stuck consumer, the copies go to another online member of its
 * group at once, else back to the ready queue. Confirmed first; the result line says where
 * they went.
 */
import { useState } from 'react';
import type { QueuedMessage } from '../../../../shared/console-api-queues';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import { ErrorBanner } from '../../components/error-banner';
import { formatCount } from '../../format';
import { useConsoleAction } from '../../hooks/use-console-action';
import { ageText } from './queues-model';

/** In-flight copies listed at once (a stuck consumer holds at most its prefetch, in practice). */
const IN_FLIGHT_PAGE = 100;

export interface QueueInFlightProps {
  client: ConsoleClient;
  target: { connectionId: string; realm: string; consumer: string; key: string };
  inFlight: number;
  reload: () => Promise<void>;
}

/** "ACK due in 1m 52s", "retry in 4s", or "ACK being settled". */
function waitText(m: QueuedMessage, now: number): string {
  if (m.ackDeadlineAt !== null) return `ACK due in ${ageText(Math.max(0, m.ackDeadlineAt - now))}`;
  if (m.nextRetryAt !== null) return `retry in ${ageText(Math.max(0, m.nextRetryAt - now))}`;
  return 'ACK being settled';
}

export function QueueInFlight({ client, target, inFlight, reload }: QueueInFlightProps) {
  const [copies, setCopies] = useState<QueuedMessage[] | null>(null);
  const [loadedAt, setLoadedAt] = useState(0);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const loadAction = useConsoleAction();
  const releaseAction = useConsoleAction();

  const load = async () => {
    const value = await loadAction.run(
      () => client.api.peekQueue({ ...target, state: 'in_flight', limit: IN_FLIGHT_PAGE }),
      () => '',
    );
    if (!value) return;
    setCopies(value.messages.filter((m) => m.inFlight));
    setLoadedAt(Date.now());
    setSelected(new Set());
  };
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const ids = [...selected];
  const count = ids.length > 0 ? ids.length : (copies?.length ?? inFlight);
  const release = () => {
    setConfirming(false);
    void releaseAction.run(
      () =>
        confirmedCall(client.api, 'releaseInFlight', {
          ...target,
          ...(ids.length > 0 ? { ids } : {}),
        }),
      (v) => v.summary,
      async () => {
        await reload();
        await load();
      },
    );
  };

  return (
    <>
      <h4 className="ops-detail__sub">In flight</h4>
      <p className="muted small queue-detail__hint">
        Sent and not yet acknowledged. Release now ends the wait as a timeout would (the attempt
        counts) and redelivers to another online member of the group; with none, the consumer gets
        it again after its retry delay.
      </p>
      <div className="row-actions">
        <button
          type="button"
          className="button"
          disabled={loadAction.busy}
          onClick={() => void load()}
          data-testid="queue-inflight-load"
        >
          {copies ? 'Refresh in flight' : `Show ${formatCount(inFlight)} in flight`}
        </button>
        <button
          type="button"
          className="button button--danger"
          disabled={releaseAction.busy || count === 0}
          onClick={() => setConfirming(true)}
          data-testid="queue-release"
        >
          Release {ids.length > 0 ? `${formatCount(ids.length)} selected` : 'all'} now
        </button>
      </div>
      {confirming && (
        <ConfirmPanel
          confirmLabel="Release now"
          onConfirm={release}
          onCancel={() => setConfirming(false)}
          testId="queue-release-confirm"
        >
          Release{' '}
          {ids.length > 0
            ? `${formatCount(ids.length)} selected in-flight message${ids.length === 1 ? '' : 's'}`
            : 'every in-flight message'}{' '}
          of {target.consumer} now? A late ACK from it still counts, but another member may process
          the message too.
        </ConfirmPanel>
      )}
      <ErrorBanner
        title="In flight:"
        message={loadAction.error?.message}
        testId="queue-inflight-error"
      />
      <ErrorBanner
        title="Release:"
        message={releaseAction.error?.message}
        testId="queue-release-error"
      />
      {releaseAction.message && (
        <p className="action-line" role="status" data-testid="queue-release-message">
          {releaseAction.message}
        </p>
      )}
      {copies && copies.length === 0 && (
        <p className="ops-empty" data-testid="queue-inflight-empty">
          Nothing in flight.
        </p>
      )}
      {copies && copies.length > 0 && (
        <ol className="queue-peek" data-testid="queue-inflight-list">
          {copies.map((m) => (
            <li key={m.msgId} className="queue-peek__item" data-testid="queue-inflight-item">
              <div className="queue-peek__facts">
                <label className="queue-select">
                  <input
                    type="checkbox"
                    checked={selected.has(m.msgId)}
                    onChange={() => toggle(m.msgId)}
                    aria-label={`Select ${m.msgId}`}
                    data-testid="queue-inflight-select"
                  />
                  <code>{m.msgId}</code>
                </label>
                <span>{m.event}</span>
                <span data-testid="queue-inflight-attempt">attempt {formatCount(m.attempts)}</span>
                <span data-testid="queue-inflight-wait">{waitText(m, loadedAt)}</span>
                <span>age {ageText(m.ageMs)}</span>
              </div>
              <pre className="queue-peek__payload">
                {m.preview}
                {m.truncated && '…'}
              </pre>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
