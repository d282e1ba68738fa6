/**
 * One connection's detail panel in the Clients view (issue 27): address, transport, realm, role
 * and what admitted it, counters, and the event history (newest first), read with the signed
 * `client_detail` every 2 s while open; "Force close" (after a confirmation) runs `close_client`.
 * A broker without them (a plain tyo-mq broker, an older Switchboard) gets a sentence saying so
 * and how to cut a client off instead.
 */
import { useEffect, useState } from 'react';
import type { ClientDetail, ClientEvent } from '../../../../shared/client-detail';
import type { ClientDetailResult } from '../../../../shared/console-api-operations';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import { useConsoleAction } from '../../hooks/use-console-action';
import { formatCount } from '../../format';

/** Refresh period of an open panel, ms. */
const REFRESH_MS = 2_000;
/** "Refuse its client id for 5 minutes" (`close_client` `block_seconds`). */
const BLOCK_SECONDS = 300;

/** Which connection the panel shows. */
export interface ClientTarget {
  realm: string;
  clientId: string;
  /** How the row names it (a producer/consumer name, or the MQTT client id). */
  label: string;
}

const time = (ms: number) => new Date(ms).toLocaleTimeString('en-GB');

const EVENT_LABELS: Record<ClientEvent['kind'], string> = {
  connect: 'connected',
  auth_ok: 'authenticated',
  auth_fail: 'authentication refused',
  rate_limited: 'rate limited',
  dropped: 'copies dropped (slow consumer)',
  upgrade: 'transport upgraded',
  closed_by_manager: 'force-closed',
  disconnect: 'disconnected',
};

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function Facts({ d }: { d: ClientDetail }) {
  return (
    <dl className="facts" data-testid="client-detail-facts">
      <dt>Protocol</dt>
      <dd>
        {d.protocol === 'mqtt' ? `MQTT${d.protocol_version === 5 ? ' 5' : ' 3.1.1'}` : 'socket.io'}{' '}
        over {d.transport}
      </dd>
      <dt>Address</dt>
      <dd data-testid="client-detail-ip">{d.ip}</dd>
      <dt>Realm</dt>
      <dd>{d.realm}</dd>
      <dt>Role</dt>
      <dd>{d.role ?? 'not admitted'}</dd>
      <dt>Admitted by</dt>
      <dd data-testid="client-detail-admitted">{d.admitted_by ?? '—'}</dd>
      {d.username !== undefined && (
        <>
          <dt>Username</dt>
          <dd>{d.username ?? '—'}</dd>
        </>
      )}
      {d.names && d.names.length > 0 && (
        <>
          <dt>Names</dt>
          <dd>{d.names.join(', ')}</dd>
        </>
      )}
      <dt>Connected</dt>
      <dd>{new Date(d.connected_since).toLocaleString('en-GB')}</dd>
      {d.disconnected_at !== null && (
        <>
          <dt>Disconnected</dt>
          <dd data-testid="client-detail-reason">
            {time(d.disconnected_at)} — {d.disconnect_reason}
          </dd>
        </>
      )}
      <dt>Messages</dt>
      <dd>
        {formatCount(d.messages_in)} in · {formatCount(d.messages_out)} out
      </dd>
      <dt>Bytes</dt>
      <dd>
        {bytes(d.bytes_in)} in · {bytes(d.bytes_out)} out
      </dd>
    </dl>
  );
}

function History({ events }: { events: ClientEvent[] }) {
  return (
    <ol className="ops-history" data-testid="client-detail-history">
      {[...events].reverse().map((e, i) => (
        <li key={`${e.at}-${i}`} className="ops-history__item" data-kind={e.kind}>
          <span className="ops-history__time">{time(e.at)}</span>
          <span>
            {EVENT_LABELS[e.kind] ?? e.kind}
            {e.count !== undefined && e.count > 1 && ` ×${formatCount(e.count)}`}
            {e.detail && <span className="muted"> — {e.detail}</span>}
          </span>
        </li>
      ))}
    </ol>
  );
}

export function ClientDetailPanel({
  client,
  connectionId,
  target,
  onClose,
}: {
  client: ConsoleClient;
  connectionId: string;
  target: ClientTarget;
  onClose: () => void;
}) {
  const [result, setResult] = useState<ClientDetailResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  // What the open confirmation asks, fixed when it opened: a refresh that finds the device gone
  // must not turn the button under the operator's pointer into another action.
  const [confirming, setConfirming] = useState<false | 'close' | 'block'>(false);
  const [block, setBlock] = useState(false);
  const closeAction = useConsoleAction();
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = async (): Promise<void> => {
      const r = await client.api.getClientDetail({
        connectionId,
        realm: target.realm,
        clientId: target.clientId,
      });
      if (!live) return;
      if (r.ok) {
        setResult(r.value);
        setError(null);
      } else setError(r.error.message);
      // A closed socket.io connection changes no more (its id is never reused), while an MQTT
      // client id comes back with the device; a broker without the command never will.
      const d = r.ok ? r.value.detail : null;
      const done = r.ok && (!r.value.available || (d?.online === false && d.protocol !== 'mqtt'));
      if (!done) timer = setTimeout(() => void load(), REFRESH_MS);
    };
    void load();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [client, connectionId, target.realm, target.clientId, tick]);

  const forceClose = () => {
    setConfirming(false);
    // Its own outcome line: the 2 s refresh clears the panel's load error, never this one.
    void closeAction.run(
      () =>
        confirmedCall(client.api, 'closeClient', {
          connectionId,
          realm: target.realm,
          clientId: target.clientId,
          ...(block || confirming === 'block' ? { blockSeconds: BLOCK_SECONDS } : {}),
        }),
      (v) => v.message,
      () => setTick((t) => t + 1),
    );
  };

  const detail = result?.detail ?? null;
  // An MQTT device between two attempts of a reconnect loop: nothing to close, but its client
  // id can still be refused (close_client with block_seconds installs the block alone).
  const blockOnly = detail !== null && !detail.online && detail.protocol === 'mqtt';
  const unavailable = result !== null && !result.available;
  return (
    <section className="panel ops-client-detail" data-testid="client-detail">
      <div className="ops-detail__header">
        <h3 className="section-title">
          {target.label} <span className="muted small">({target.realm})</span>
        </h3>
        {detail && (
          <StatusBadge
            label={detail.online ? 'online' : 'closed'}
            tone={detail.online ? 'ok' : 'idle'}
            testId="client-detail-state"
          />
        )}
        <button
          type="button"
          className="button"
          onClick={onClose}
          data-testid="client-detail-close"
        >
          Hide
        </button>
      </div>
      <p className="muted small">
        Connection <code>{target.clientId}</code>
      </p>
      <ErrorBanner title="Client:" message={error} testId="client-detail-error" />
      {result === null && !error && <p className="muted">Loading…</p>}
      {unavailable && (
        <div data-testid="client-detail-unavailable">
          <p className="muted">{result.message}: no per-client detail or history.</p>
          <p className="muted">
            This broker does not offer close_client: to cut this client off, revoke its token (in
            Tokens) or remove its realm.
          </p>
        </div>
      )}
      {detail && (
        <>
          <Facts d={detail} />
          {(detail.online || blockOnly || confirming) &&
            (confirming ? (
              <ConfirmPanel
                confirmLabel={confirming === 'block' ? 'Block client id' : 'Force close'}
                onConfirm={forceClose}
                onCancel={() => setConfirming(false)}
                testId="client-force-close-confirm"
              >
                {confirming === 'block'
                  ? 'Nothing is connected under this client id now. Refuse its reconnects for 5 minutes?'
                  : 'Close this one connection now? Its registrations and durable queues stay; a ' +
                    'client that still holds a valid credential may reconnect.'}
                {detail.protocol === 'mqtt' && confirming === 'close' && (
                  <label className="client-block">
                    <input
                      type="checkbox"
                      checked={block}
                      onChange={(e) => setBlock(e.target.checked)}
                      data-testid="client-force-close-block"
                    />{' '}
                    and refuse its client id for 5 minutes (a device that reconnects at once stays
                    out)
                  </label>
                )}
              </ConfirmPanel>
            ) : (
              <button
                type="button"
                className="button button--danger"
                disabled={closeAction.busy}
                onClick={() => setConfirming(blockOnly ? 'block' : 'close')}
                data-testid="client-force-close"
              >
                {blockOnly ? 'Block client id' : 'Force close'}
              </button>
            ))}
          <ErrorBanner
            title="Force close:"
            message={closeAction.error?.message}
            testId="client-force-close-error"
          />
          {closeAction.message && (
            <p className="action-line" role="status" data-testid="client-detail-notice">
              {closeAction.message}
            </p>
          )}
          <h4 className="ops-detail__sub">History</h4>
          <History events={detail.history} />
        </>
      )}
    </section>
  );
}
