/**
 * Connections: the built-in local broker and remote broker profiles — add, edit, test (each layer
 * with its reason), remove, use (switch the selected connection), export/import (never with
 * secrets) — and a notice of where secrets are kept when no OS keychain protects them.
 * `#/connections?edit=<id>` (the "edit credential" buttons of other views) opens that
 * connection's editor.
 */
import { useEffect, useRef, useState } from 'react';
import type {
  ConnectionBackoff,
  ConnectionSummary,
} from '../../../../shared/console-api-connections';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { useClearRouteParams, useRouteParam } from '../../navigation/hash-route';
import { StatusBadge } from '../../components/status-badge';
import { useAppStore } from '../../store/app-store';
import {
  exportConnections,
  importConnections,
  refreshConnections,
  removeConnection,
  testConnection,
} from '../../store/connection-actions';
import { ConnectionForm } from './connection-form';
import { ConnectionTestReportView } from './connection-test-report';
import { useNow } from '../../hooks/use-now';
import '../../styles/connections.css';

const STATE_TONES = { online: 'ok', refused: 'bad', unreachable: 'bad', unknown: 'idle' } as const;

function credentialText(connection: ConnectionSummary): string {
  const { credential } = connection;
  const what =
    credential.kind === 'admin'
      ? 'admin token'
      : credential.kind === 'realm-manager'
        ? `manager key of realm ${credential.realm}`
        : 'no credential';
  if (credential.kind === 'none' || connection.hasSecret) return what;
  return `${what} — missing: edit to enter it`;
}

/**
 * What a connection backing off after refusals says: how often it was refused, when the console
 * asks again, and what to do. Pure, for the view and its tests.
 */
export function backoffText(backoff: ConnectionBackoff, now: number): string {
  const seconds = Math.max(0, Math.ceil((backoff.retryAt - now) / 1_000));
  const what = backoff.what === 'http' ? 'admin token' : 'signed commands';
  const times = backoff.refusals === 1 ? 'once' : `${backoff.refusals} times in a row`;
  return (
    `Refused ${times} (${what}): backing off, next try ${seconds > 0 ? `in ${seconds} s` : 'now'}` +
    ' — the wait doubles after each refusal, up to a minute. Edit the credential to fix it.'
  );
}

function BackoffNotice({ backoff }: { backoff: ConnectionBackoff }) {
  const now = useNow();
  return (
    <p
      className="muted connection-card__backoff"
      data-testid="connection-backoff"
      data-refusals={backoff.refusals}
    >
      {backoffText(backoff, now)}
    </p>
  );
}

function ConnectionCard({
  client,
  connection,
  onEdit,
}: {
  client: ConsoleClient;
  connection: ConnectionSummary;
  onEdit(): void;
}) {
  const selectedId = useAppStore((s) => s.selectedConnectionId);
  const select = useAppStore((s) => s.selectConnection);
  const report = useAppStore((s) => s.connectionTests[connection.id]);
  const testing = useAppStore((s) => s.testingConnections[connection.id] === true);
  const [confirming, setConfirming] = useState(false);
  const selected = selectedId === connection.id;

  return (
    <li className="panel connection-card" data-testid={`connection-${connection.name}`}>
      <div className="connection-card__head">
        <div className="connection-card__title">
          <strong>{connection.name}</strong>
          {selected && <span className="muted"> · in use</span>}
          <p className="muted wrap-anywhere">{connection.url}</p>
          <p className="muted small-line">
            {connection.builtIn ? 'built in · ' : ''}
            {credentialText(connection)}
            {connection.tls.caFile ? ` · CA ${connection.tls.caFile}` : ''}
            {connection.tls.rejectUnauthorized ? '' : ' · TLS certificates NOT checked'}
            {connection.allowInsecureBearer ? ' · token allowed over plain http' : ''}
          </p>
        </div>
        <StatusBadge
          label={connection.backoff ? `${connection.state} · backing off` : connection.state}
          tone={STATE_TONES[connection.state]}
          testId={`connection-state-${connection.name}`}
        />
      </div>
      {connection.problem && <p className="connection-card__problem">{connection.problem}</p>}
      {connection.backoff && <BackoffNotice backoff={connection.backoff} />}
      <div className="connection-card__actions">
        <button
          type="button"
          className="button button--primary"
          disabled={selected}
          onClick={() => select(connection.id)}
          data-testid="connection-use"
        >
          {selected ? 'In use' : 'Use'}
        </button>
        <button
          type="button"
          className="button"
          disabled={testing}
          onClick={() => void testConnection(client, connection.id)}
          data-testid="connection-test"
        >
          {testing ? 'Testing…' : 'Test'}
        </button>
        {!connection.builtIn && (
          <>
            <button type="button" className="button" onClick={onEdit} data-testid="connection-edit">
              Edit
            </button>
            {confirming ? (
              <>
                <button
                  type="button"
                  className="button button--danger"
                  onClick={() => void removeConnection(client, connection.id)}
                  data-testid="connection-remove-confirm"
                >
                  Remove {connection.name}
                </button>
                <button type="button" className="button" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button
                type="button"
                className="button button--danger"
                onClick={() => setConfirming(true)}
                data-testid="connection-remove"
              >
                Remove
              </button>
            )}
          </>
        )}
      </div>
      {report && <ConnectionTestReportView report={report} />}
    </li>
  );
}

export function ConnectionsView({ client }: { client: ConsoleClient }) {
  const connections = useAppStore((s) => s.connections);
  const secretStore = useAppStore((s) => s.secretStore);
  const error = useAppStore((s) => s.connectionsError);
  // Each opened form is its own object: a save that finishes after the operator opened another
  // form (Edit on a card, say) closes only the form it was made from.
  const [form, setForm] = useState<{ editing?: ConnectionSummary } | null>(null);
  const openForm = (editing?: ConnectionSummary): void => {
    if (editing && form?.editing?.id === editing.id) return;
    setForm(editing ? { editing } : {});
  };
  const [exported, setExported] = useState<string | null>(null);
  const [importText, setImportText] = useState('');
  const [imported, setImported] = useState<number | null>(null);

  useEffect(() => {
    void refreshConnections(client);
  }, [client]);

  // Opened to edit one connection: show its editor once the list has it, then drop the request
  // from the URL (a reload or Back does not reopen it).
  const editId = useRouteParam('edit');
  const clearRouteParams = useClearRouteParams();
  const formRef = useRef<HTMLDivElement>(null);
  const toEdit = editId ? connections.find((c) => c.id === editId && !c.builtIn) : undefined;
  if (toEdit && form?.editing?.id !== toEdit.id) openForm(toEdit);
  useEffect(() => {
    if (!toEdit) return;
    clearRouteParams();
    formRef.current?.scrollIntoView({ block: 'nearest' });
  }, [toEdit, clearRouteParams]);

  return (
    <main className="page" data-testid="connections-view">
      <header className="page__header">
        <div className="page__heading">
          <h2 className="page__title">Connections</h2>
          <p className="muted">The local broker and remote brokers this console manages.</p>
        </div>
        <div className="page__actions">
          <button
            type="button"
            className="button button--primary"
            // A new-connection form already open keeps what was typed in it.
            onClick={() => {
              if (!form || form.editing) openForm();
            }}
            data-testid="connection-add"
          >
            Add connection
          </button>
        </div>
      </header>

      {secretStore && !secretStore.osKeychain && (
        <p className="panel notice" data-testid="secret-store-notice">
          <strong>No OS keychain is used.</strong> Admin tokens and manager keys are kept in{' '}
          {secretStore.description}. Anyone who can read that file as your user can manage your
          brokers.
        </p>
      )}
      <ErrorBanner title="Connection error:" message={error?.message} testId="connections-error" />

      <div ref={formRef}>
        {form && (
          <ConnectionForm
            key={form.editing?.id ?? 'new'}
            client={client}
            editing={form.editing}
            onDone={() => setForm((open) => (open === form ? null : open))}
          />
        )}
      </div>

      <ul className="connection-list" data-testid="connection-list">
        {connections.map((connection) => (
          <ConnectionCard
            key={connection.id}
            client={client}
            connection={connection}
            onEdit={() => openForm(connection)}
          />
        ))}
      </ul>

      <h2 className="section-title">Export and import</h2>
      <p className="muted">Profiles only: tokens and keys are never exported.</p>
      <div className="connection-io">
        <button
          type="button"
          className="button"
          onClick={() => void exportConnections(client).then(setExported)}
          data-testid="connections-export"
        >
          Export profiles
        </button>
        {exported !== null && (
          <textarea
            className="connection-io__text"
            readOnly
            value={exported}
            rows={6}
            data-testid="connections-export-text"
          />
        )}
        <textarea
          className="connection-io__text"
          placeholder="Paste an exported document here"
          value={importText}
          rows={4}
          onChange={(e) => setImportText(e.target.value)}
          data-testid="connections-import-text"
        />
        <button
          type="button"
          className="button"
          disabled={!importText.trim()}
          onClick={() =>
            void importConnections(client, importText).then((count) => {
              setImported(count);
              if (count > 0) setImportText('');
            })
          }
          data-testid="connections-import"
        >
          Import profiles
        </button>
        {imported !== null && imported > 0 && (
          <p className="muted">
            Imported {imported} profile{imported === 1 ? '' : 's'}: edit each to enter its
            credential.
          </p>
        )}
      </div>
    </main>
  );
}
