/**
 * One identity of the E2EE identities view: its published keys (key id, algorithm, SHA-256
 * fingerprint, when published) each with Revoke, the credential it is pinned to (a prefix of
 * the principal), its prekey stock with the low-water warning, its push registrations (token
 * masked, last wake outcome) and its sealed-sender UAK mode. "Revoke all and unpin" frees the
 * identity for another credential. Every revoke goes through an inline confirmation, then
 * `confirmedCall` (`revokeIdentityKey`).
 */
import { useEffect, useRef, useState } from 'react';
import { PREKEY_LOW_WATER, type IdentityRow } from '../../../../shared/console-api-identities';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import type { ConsoleAction } from '../../hooks/use-console-action';
import { PrekeyBadge, prekeysLow } from './identity-list';

export interface IdentityDetailProps {
  client: ConsoleClient;
  connectionId: string;
  realm: string;
  row: IdentityRow;
  onClose: () => void;
  reload: () => Promise<void>;
  /** The view's revoke action (its outcome is shown by the view: the row may be gone). */
  revoke: ConsoleAction;
}

/** What the operator is confirming: one key, or every key and the pin. */
type Pending = { keyId: string } | { all: true } | null;

const when = (iso: string | null): string =>
  iso ? new Date(iso).toLocaleString('en-GB', { hour12: false }) : '—';

export function IdentityDetail(props: IdentityDetailProps) {
  const { client, connectionId, realm, row, onClose, reload, revoke } = props;
  const [pending, setPending] = useState<Pending>(null);
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);

  const run = (what: Exclude<Pending, null>) =>
    void revoke
      .run(
        () =>
          confirmedCall(client.api, 'revokeIdentityKey', {
            connectionId,
            realm,
            identity: row.identity,
            ...('keyId' in what ? { keyId: what.keyId } : { unpin: true }),
          }),
        (v) => v.summary,
        reload,
      )
      .then(() => setPending(null));

  return (
    <section
      ref={ref}
      className="panel ops-detail identity-detail"
      data-testid="identity-detail"
      aria-label={`Identity ${row.identity}`}
    >
      <div className="ops-detail__header">
        <h3 className="section-title identity-detail__title">{row.identity}</h3>
        <button type="button" className="button" onClick={onClose} data-testid="identity-close">
          Close
        </button>
      </div>
      <dl className="facts identity-facts">
        <dt>Pinned to</dt>
        <dd data-testid="identity-pin">
          {row.principalPrefix ? (
            <code title="The first characters of the SHA-256 of the credential's token">
              {row.principalPrefix}…
            </code>
          ) : (
            'no credential (first-come)'
          )}
        </dd>
        <dt>Prekeys</dt>
        <dd>
          {row.prekeys ? (
            <>
              <PrekeyBadge row={row} /> signed prekey {row.prekeys.signedPrekeyId} · published{' '}
              {when(row.prekeys.updatedAt)}
              {prekeysLow(row) && (
                <span className="identity-detail__warning" data-testid="identity-prekeys-warning">
                  Fewer than {PREKEY_LOW_WATER} one-time prekeys left: the client should publish
                  more.
                </span>
              )}
            </>
          ) : (
            'none published'
          )}
        </dd>
        <dt>Sealed sender</dt>
        <dd>{row.sealedUakMode ?? 'no UAK set'}</dd>
      </dl>

      <h4 className="ops-detail__sub">Keys</h4>
      {row.keys.length === 0 && <p className="muted small">No published key.</p>}
      <ul className="identity-keys">
        {row.keys.map((key) => (
          <li key={key.keyId} className="identity-key" data-testid="identity-key">
            <span className="identity-key__head">
              <strong>{key.keyId}</strong> <span className="muted">{key.alg}</span>
              <span className="muted"> · {when(key.publishedAt)}</span>
            </span>
            <code className="identity-key__fp" data-testid="identity-fingerprint">
              {key.fingerprint}
            </code>
            {pending && 'keyId' in pending && pending.keyId === key.keyId ? (
              <ConfirmPanel
                confirmLabel="Revoke"
                onConfirm={() => run(pending)}
                onCancel={() => setPending(null)}
                testId="identity-revoke-confirm"
              >
                Revoke the key <code>{key.keyId}</code> of {row.identity}? Peers can no longer look
                it up; the identity stays pinned to its credential.
              </ConfirmPanel>
            ) : (
              <button
                type="button"
                className="button button--danger identity-key__revoke"
                disabled={revoke.busy}
                onClick={() => setPending({ keyId: key.keyId })}
                data-testid="identity-revoke"
              >
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>

      <h4 className="ops-detail__sub">Push registrations</h4>
      {row.push.length === 0 ? (
        <p className="muted small">None.</p>
      ) : (
        <ul className="identity-push">
          {row.push.map((p) => (
            <li key={`${p.transport}${p.tokenMasked}${p.registeredAt}`} data-testid="identity-push">
              <strong>{p.transport}</strong>
              {p.appId && <span className="muted"> {p.appId}</span>} <code>{p.tokenMasked}</code>
              <span className="muted">
                {' '}
                · registered {when(p.registeredAt)} · last wake{' '}
                {p.lastWakeOutcome === null
                  ? 'none'
                  : `${p.lastWakeOutcome === 'ok' ? 'delivered' : 'not delivered'} (${when(row.lastWakeAt)})`}
              </span>
            </li>
          ))}
        </ul>
      )}

      {pending && 'all' in pending ? (
        <ConfirmPanel
          confirmLabel="Revoke all and unpin"
          onConfirm={() => run(pending)}
          onCancel={() => setPending(null)}
          testId="identity-unpin-confirm"
        >
          Revoke every key of {row.identity} and drop its pin? Any credential may then claim the
          identity by publishing a key.
        </ConfirmPanel>
      ) : (
        <div className="row-actions">
          <button
            type="button"
            className="button button--danger"
            disabled={revoke.busy || (row.keys.length === 0 && !row.principalPrefix)}
            onClick={() => setPending({ all: true })}
            data-testid="identity-unpin"
          >
            Revoke all and unpin
          </button>
        </div>
      )}
    </section>
  );
}
