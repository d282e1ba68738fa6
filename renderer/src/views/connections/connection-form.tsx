/**
 * Add / edit form of a remote broker profile: name, URL, credential (admin token, or realm +
 * realm manager key, or none), TLS options and the clear-text opt-in. The secret field is
 * write-only: it is sent once to the ConsoleApi and never read back (editing leaves it empty,
 * meaning "keep the stored one"). **Test** checks the profile as typed, before it is saved
 * (`testConnectionDraft`: nothing is stored or polled).
 */
import { useState, type FormEvent } from 'react';
import type {
  ConnectionSummary,
  ConnectionTestReport,
} from '../../../../shared/console-api-connections';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { saveConnection } from '../../store/connection-actions';
import { ConnectionTestReportView } from './connection-test-report';
import { TextField, CheckField } from '../../components/form-fields';

type CredentialKind = 'admin' | 'realm-manager' | 'none';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** True for `http://` / `ws://` URLs whose host is not loopback (a bearer would go in clear). */
function clearTextRemote(url: string): boolean {
  const match = /^(https?|wss?):\/\/([^/:]+|\[[^\]]+\])/i.exec(url.trim());
  if (!match?.[1] || !match[2]) return false;
  const secure = /^(https|wss)$/i.test(match[1]);
  return !secure && !LOOPBACK.test(match[2]);
}

export interface ConnectionFormProps {
  client: ConsoleClient;
  /** The profile to edit; absent: a new one. */
  editing?: ConnectionSummary;
  onDone(): void;
}

export function ConnectionForm({ client, editing, onDone }: ConnectionFormProps) {
  const [name, setName] = useState(editing?.name ?? '');
  const [url, setUrl] = useState(editing?.url ?? '');
  const [kind, setKind] = useState<CredentialKind>(editing?.credential.kind ?? 'admin');
  const [realm, setRealm] = useState(
    editing?.credential.kind === 'realm-manager' ? editing.credential.realm : '',
  );
  const [secret, setSecret] = useState('');
  const [caFile, setCaFile] = useState(editing?.tls.caFile ?? '');
  const [rejectUnauthorized, setRejectUnauthorized] = useState(
    editing?.tls.rejectUnauthorized ?? true,
  );
  const [allowInsecureBearer, setAllowInsecureBearer] = useState(
    editing?.allowInsecureBearer ?? false,
  );
  const [saving, setSaving] = useState(false);
  const [testing, setTesting] = useState(false);
  const [report, setReport] = useState<ConnectionTestReport | null>(null);
  const [testError, setTestError] = useState<ErrorInfo | null>(null);

  const draft = () =>
    ({
      name: name.trim(),
      url: url.trim(),
      tls: { ...(caFile.trim() ? { caFile: caFile.trim() } : {}), rejectUnauthorized },
      credential: kind === 'realm-manager' ? { kind, realm: realm.trim() } : { kind },
      allowInsecureBearer,
      ...(secret && kind !== 'none' ? { secret } : {}),
    }) as const;

  const canTest =
    !testing &&
    name.trim() !== '' &&
    url.trim() !== '' &&
    (kind !== 'realm-manager' || realm.trim() !== '');

  const test = async (): Promise<void> => {
    setTesting(true);
    setTestError(null);
    setReport(null);
    const result = await client.api.testConnectionDraft({
      ...draft(),
      ...(editing ? { connectionId: editing.id } : {}),
    });
    if (result.ok) setReport(result.value);
    else setTestError(result.error);
    setTesting(false);
  };

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setSaving(true);
    const fields = draft();
    const saved = await saveConnection(
      client,
      editing
        ? { ...fields, connectionId: editing.id, ...(kind === 'none' ? { clearSecret: true } : {}) }
        : fields,
    );
    setSaving(false);
    // Drop the typed secret from memory whatever happened.
    setSecret('');
    if (saved) onDone();
  };

  return (
    <form
      className="panel connection-form"
      onSubmit={(event) => void submit(event)}
      data-testid="connection-form"
    >
      <h3 className="connection-form__title">
        {editing ? `Edit ${editing.name}` : 'Add a remote broker'}
      </h3>
      <TextField
        label="Name"
        required
        maxLength={100}
        value={name}
        onValue={setName}
        testId="connection-name"
      />
      <TextField
        label="URL (a base path is kept, e.g. https://host/broker-a/)"
        required
        value={url}
        placeholder="https://mq.example.com/"
        onValue={setUrl}
        testId="connection-url"
      />
      <label className="field">
        <span>Credential</span>
        <select
          value={kind}
          onChange={(e) => setKind(e.target.value as CredentialKind)}
          data-testid="connection-credential-kind"
        >
          <option value="admin">Admin token</option>
          <option value="realm-manager">Realm manager key</option>
          <option value="none">None (read-only)</option>
        </select>
      </label>
      {kind === 'realm-manager' && (
        <TextField
          label="Realm"
          required
          value={realm}
          onValue={setRealm}
          testId="connection-realm"
        />
      )}
      {kind !== 'none' && (
        <label className="field">
          <span>
            {kind === 'admin' ? 'Admin token' : 'Manager key'}
            {editing?.hasSecret ? ' (leave empty to keep the stored one)' : ''}
          </span>
          <input
            type="password"
            autoComplete="off"
            required={!editing?.hasSecret}
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            data-testid="connection-secret"
          />
        </label>
      )}
      <TextField
        label="CA file (PEM, on the console’s machine; optional)"
        value={caFile}
        placeholder="/etc/ssl/my-ca.pem"
        onValue={setCaFile}
        testId="connection-ca-file"
      />
      <CheckField checked={rejectUnauthorized} onChecked={setRejectUnauthorized}>
        Refuse untrusted TLS certificates (recommended)
      </CheckField>
      {(clearTextRemote(url) || allowInsecureBearer) && (
        <CheckField
          checkClass="check--warn"

          checked={allowInsecureBearer}
          onChecked={setAllowInsecureBearer}
          testId="connection-allow-insecure"
        >
          Allow the admin token over plain http:// to this host (anyone on the network path can read
          it). Without this the console refuses to send it.
        </CheckField>
      )}
      <div className="connection-form__actions">
        <button
          type="submit"
          className="button button--primary"
          disabled={saving}
          data-testid="connection-save"
        >
          {saving ? 'Saving…' : editing ? 'Save' : 'Add connection'}
        </button>
        <button
          type="button"
          className="button"
          disabled={!canTest}
          onClick={() => void test()}
          data-testid="connection-draft-test"
          title="Try this profile as typed, without saving it"
        >
          {testing ? 'Testing…' : 'Test before saving'}
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorBanner
        title="Test failed:"
        message={testError?.message}
        testId="connection-draft-error"
      />
      {report && (
        <div data-testid="connection-draft-report" data-ok={report.ok}>
          <p className={report.ok ? 'muted' : 'connection-card__problem'}>
            {report.ok
              ? 'Every layer works: save it to keep it.'
              : 'This profile does not work as typed: see the failed layer.'}
          </p>
          <ConnectionTestReportView report={report} />
        </div>
      )}
    </form>
  );
}
