/**
 * One retained message in the Retained view: its facts (QoS, size, MQTT 5 content type and
 * expiry), its whole payload (`getRetained`: the table only has a 1 KiB preview) as text or,
 * when not valid UTF-8, base64, and Delete behind an inline confirmation (`deleteRetained`
 * with the topic: the same as an MQTT client publishing an empty retained payload to it).
 */
import { useEffect, useRef, useState } from 'react';
import type { RetainedEntry } from '../../../../shared/console-api-retained';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import { ErrorBanner } from '../../components/error-banner';
import { formatDuration } from '../../format';
import type { ConsoleAction } from '../../hooks/use-console-action';
import { sizeText } from '../queues/queues-model';

export interface RetainedDetailProps {
  client: ConsoleClient;
  connectionId: string;
  realm: string;
  /** The row as listed (preview only). */
  entry: RetainedEntry;
  onClose: () => void;
  /** Reloads the table (after a delete). */
  reload: () => Promise<void>;
  /**
   * The view's delete action: its outcome is shown by the view, since a deleted row (and so
   * this detail) is gone from the table once it reloads.
   */
  remove: ConsoleAction;
}

export function RetainedDetail(props: RetainedDetailProps) {
  const { client, connectionId, realm, entry, onClose, reload, remove } = props;
  const [full, setFull] = useState<RetainedEntry | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const ref = useRef<HTMLElement>(null);

  // Opened below the table: bring it into view (on a phone it starts off-screen).
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  // The whole payload (the row holds a preview); a late answer for another row is dropped.
  useEffect(() => {
    let current = true;
    void client.api.getRetained({ connectionId, realm, topic: entry.topic }).then((result) => {
      if (!current) return;
      if (result.ok) setFull(result.value);
      else setLoadError(result.error.message);
    });
    return () => {
      current = false;
    };
  }, [client, connectionId, realm, entry.topic]);

  const shown = full ?? entry;
  const deleteOne = () =>
    void remove
      .run(
        () =>
          confirmedCall(client.api, 'deleteRetained', { connectionId, realm, topic: entry.topic }),
        (v) => v.summary,
        reload,
      )
      .then(() => setConfirming(false));

  return (
    <section
      ref={ref}
      className="panel queue-detail retained-detail"
      data-testid="retained-detail"
      aria-label="Retained message"
    >
      <div className="queue-detail__head">
        <div className="queue-detail__title">
          <h3 className="section-title">
            <code>{entry.topic}</code>
          </h3>
          <p className="muted small">retained in {realm}</p>
        </div>
        <button type="button" className="button" onClick={onClose} data-testid="retained-close">
          Close
        </button>
      </div>
      <dl className="facts queue-facts">
        <dt>QoS</dt>
        <dd>{shown.qos}</dd>
        <dt>Size</dt>
        <dd>{sizeText(shown.sizeBytes)}</dd>
        <dt>Encoding</dt>
        <dd>{shown.payloadEncoding === 'utf8' ? 'UTF-8 text' : 'binary (shown as base64)'}</dd>
        {shown.contentType && (
          <>
            <dt>Content type</dt>
            <dd>{shown.contentType}</dd>
          </>
        )}
        {shown.messageExpiryIntervalS !== null && (
          <>
            <dt>Expiry</dt>
            <dd>
              {formatDuration(shown.messageExpiryIntervalS)}
              {shown.expiresInS !== null && ` (${formatDuration(shown.expiresInS)} left)`}
            </dd>
          </>
        )}
      </dl>
      <h4 className="ops-detail__sub">Payload</h4>
      <ErrorBanner title="Payload:" message={loadError ?? undefined} testId="retained-load-error" />
      <pre className="retained-payload" data-testid="retained-payload">
        {shown.sizeBytes === 0 ? '(empty)' : shown.payload}
        {shown.truncated && '…'}
      </pre>
      {shown.truncated && (
        <p className="muted small">Only the first {sizeText(shown.payload.length)} are shown.</p>
      )}

      {confirming ? (
        <ConfirmPanel
          confirmLabel="Delete"
          onConfirm={deleteOne}
          onCancel={() => setConfirming(false)}
          testId="retained-delete-confirm"
        >
          Delete the retained message of <code>{entry.topic}</code>? New subscribers will no longer
          get it; clients already subscribed are not told.
        </ConfirmPanel>
      ) : (
        <div className="row-actions">
          <button
            type="button"
            className="button button--danger"
            disabled={remove.busy}
            onClick={() => setConfirming(true)}
            data-testid="retained-delete"
          >
            Delete
          </button>
        </div>
      )}
    </section>
  );
}
