/**
 * Tokens of the selected connection, from the broker's public settings (§8.4):
 * approved client tokens (revoke with confirmation; the broker then disconnects their sessions),
 * management tokens (create — the token is revealed once — and revoke), external validators
 * (set, remove). Tokens are shown by the first characters of their SHA-256 hash, never themselves.
 */
import { useCallback, useState } from 'react';
import type { GeneratedSecret } from '../../../../shared/console-api-realms';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConnectionProblem } from '../../components/connection-problem';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import '../../styles/realms.css';
import { SecretReveal } from '../realms/secret-reveal';
import { useConnectionId } from '../../hooks/use-connection-id';
import { useConsoleAction } from '../../hooks/use-console-action';
import { usePolled } from '../../hooks/use-polled';
import { ValidatorForm } from './validator-form';
import { TextField, CheckField } from '../../components/form-fields';
import { Page } from '../../components/page';

const short = (hash: string): string => hash.slice(0, 12);

function ConfirmButton({
  label,
  confirmLabel,
  disabled,
  onConfirm,
  testId,
}: {
  label: string;
  confirmLabel: string;
  disabled: boolean;
  onConfirm: () => void;
  testId: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className="button button--danger"
        disabled={disabled}
        onClick={() => setAsking(true)}
        data-testid={testId}
      >
        {label}
      </button>
    );
  }
  return (
    <span className="row-actions">
      <button
        type="button"
        className="button button--danger"
        disabled={disabled}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
        data-testid={`${testId}-confirm`}
      >
        {confirmLabel}
      </button>
      <button type="button" className="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export function TokensView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const action = useConsoleAction();
  const polled = usePolled(
    useCallback(() => client.api.listTokens({ connectionId }), [client, connectionId]),
    5_000,
  );
  const { value: list, error: loadError, reload } = polled;
  const [secret, setSecret] = useState<GeneratedSecret | null>(null);
  const [prefix, setPrefix] = useState('');
  const [ephemeralOnly, setEphemeralOnly] = useState(true);
  const [maxTtl, setMaxTtl] = useState('7d');

  const createManagementToken = async () => {
    const value = await action.run(
      () =>
        client.api.revealGeneratedSecret({
          connectionId,
          kind: 'managementToken',
          realmPrefix: prefix.trim(),
          ephemeralOnly,
          ...(maxTtl.trim() ? { maxTtl: maxTtl.trim() } : {}),
        }),
      (v) => v.summary,
      reload,
    );
    if (value) {
      setSecret(value);
      setPrefix('');
    }
  };

  return (
    <Page
      testId="tokens-view"
      title="Tokens"
      intro="Tokens are shown by their hash. Revoking one disconnects the sessions that logged in
            with it."
    >
      <ConnectionProblem
        error={loadError}
        connectionId={connectionId}
        what="its tokens"
        testId="tokens-credential-problem"
      />
      {secret && <SecretReveal secret={secret} onDone={() => setSecret(null)} />}
      <ErrorBanner
        title="Action failed:"
        message={action.error?.message}
        testId="tokens-action-error"
      />
      {action.message && (
        <p className="action-line" role="status" data-testid="tokens-message">
          {action.message}
        </p>
      )}

      <h3 className="section-title">Approved client tokens</h3>
      <ul className="item-list" data-testid="tokens-list">
        {list?.tokens.length === 0 && <li className="muted">No tokens.</li>}
        {list?.tokens.map((token) => (
          <li
            key={token.tokenHash}
            className="item"
            data-testid={`token-${token.clientId ?? short(token.tokenHash)}`}
          >
            <span className="item__main">
              <strong>
                {token.clientName ??
                  token.clientId ??
                  (token.globalAdmin ? 'Global admin' : 'configured token')}
              </strong>
              {token.clientId && <span className="muted"> ({token.clientId})</span>}
            </span>
            <span className="realm-row__badges">
              <StatusBadge label={`realm ${token.realm}`} tone="idle" />
              <StatusBadge label={token.role} tone={token.globalAdmin ? 'bad' : 'ok'} />
            </span>
            <code className="muted hash">{short(token.tokenHash)}…</code>
            {token.globalAdmin ? (
              <span className="muted small-inline">not revocable here</span>
            ) : (
              <ConfirmButton
                label="Revoke"
                confirmLabel="Revoke and disconnect"
                disabled={action.busy}
                testId={`token-revoke-${token.clientId ?? short(token.tokenHash)}`}
                onConfirm={() =>
                  void action.run(
                    () =>
                      confirmedCall(client.api, 'revokeToken', {
                        connectionId,
                        tokenHash: token.tokenHash,
                      }),
                    (v) => v.summary,
                    reload,
                  )
                }
              />
            )}
          </li>
        ))}
      </ul>
      <p className="muted small-inline">
        The protocol has no command to change a token&apos;s role or list live sessions: revoke,
        then approve a new request.
      </p>

      <h3 className="section-title">Management tokens</h3>
      <ul className="item-list" data-testid="management-tokens-list">
        {list?.managementTokens.length === 0 && <li className="muted">No management tokens.</li>}
        {list?.managementTokens.map((m) => (
          <li key={m.tokenHash} className="item" data-testid={`mtoken-${m.realmPrefix}`}>
            <span className="item__main">
              <strong>{m.realmPrefix}</strong>
              <span className="muted"> realms under this prefix</span>
            </span>
            <span className="realm-row__badges">
              {m.ephemeralOnly && <StatusBadge label="ephemeral only" tone="busy" />}
              {m.maxTtl && <StatusBadge label={`max ttl ${m.maxTtl}`} tone="idle" />}
            </span>
            <code className="muted hash">{short(m.tokenHash)}…</code>
            <ConfirmButton
              label="Revoke"
              confirmLabel="Revoke token"
              disabled={action.busy}
              testId={`mtoken-revoke-${m.realmPrefix}`}
              onConfirm={() =>
                void action.run(
                  () =>
                    confirmedCall(client.api, 'revokeManagementToken', {
                      connectionId,
                      tokenHash: m.tokenHash,
                    }),
                  (v) => v.summary,
                  reload,
                )
              }
            />
          </li>
        ))}
      </ul>
      <form
        className="panel create-realm"
        aria-label="Create a management token"
        onSubmit={(e) => {
          e.preventDefault();
          void createManagementToken();
        }}
      >
        <label className="field field--grow">
          <span>Realm prefix</span>
          <input
            value={prefix}
            placeholder="e.g. ci-"
            onChange={(e) => setPrefix(e.target.value)}
            data-testid="mtoken-prefix"
          />
        </label>
        <CheckField checked={ephemeralOnly} onChecked={setEphemeralOnly}>
          ephemeral only
        </CheckField>
        <TextField label="Max TTL" inputClass="input--short" value={maxTtl} onValue={setMaxTtl} />
        <button
          type="submit"
          className="button button--primary"
          disabled={action.busy || !prefix.trim()}
          data-testid="mtoken-create"
        >
          Generate token
        </button>
      </form>

      <h3 className="section-title">External validators</h3>
      <ul className="item-list" data-testid="validators-list">
        {list?.validators.length === 0 && <li className="muted">No external validators.</li>}
        {list?.validators.map((v) => (
          <li key={`${v.scope}:${v.target}`} className="item">
            <span className="item__main">
              <strong>{v.scope === 'global' ? 'Global' : `${v.scope} ${v.target}`}</strong>{' '}
              <code className="url">{v.url}</code>
            </span>
            <StatusBadge label={v.secretConfigured ? 'secret set' : 'no secret'} tone="idle" />
            <ConfirmButton
              label="Remove"
              confirmLabel="Remove validator"
              disabled={action.busy}
              testId={`validator-remove-${v.scope}-${v.target}`}
              onConfirm={() =>
                void action.run(
                  () =>
                    client.api.removeValidator({ connectionId, scope: v.scope, target: v.target }),
                  (r) => r.summary,
                  reload,
                )
              }
            />
          </li>
        ))}
      </ul>
      <ValidatorForm client={client} connectionId={connectionId} action={action} reload={reload} />
    </Page>
  );
}
