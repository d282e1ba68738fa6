/**
 * Commands (issue 27): any management command of the catalogue on the selected connection.
 * Pick one (searchable, grouped), fill the form generated from its parameters, Preview shows the
 * signed envelope exactly as the host will send it (proof and secrets masked; `commandPreview`),
 * Send sends that envelope (`commandRun`; a destructive command asks first, with the host's
 * confirmation) and shows the broker's reply as a JSON tree with its duration. Any edit drops
 * the preview, so what is sent is always what was shown. History (per connection, in the
 * host's memory) refills the form on a click.
 */
import { useCallback, useState } from 'react';
import type { CommandPreview, CommandRun } from '../../../../shared/console-api-commands';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import {
  managementCommand,
  type ManagementCommandInfo,
} from '../../../../shared/management-command-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import { ErrorBanner } from '../../components/error-banner';
import { Page } from '../../components/page';
import { PayloadJsonTree } from '../../components/payload-json-tree';
import { useConnectionId } from '../../hooks/use-connection-id';
import { usePolled } from '../../hooks/use-polled';
import { CommandForm } from './command-form';
import { CommandHistory } from './command-history';
import { CommandPicker } from './command-picker';
import { emptyValues, fromParams, toParams, type FormValues } from './commands-model';
import '../../styles/operations.css';
import '../../styles/commands.css';

/** History refresh period, ms (it also changes after each Send). */
const HISTORY_MS = 10_000;

export function CommandsView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const [info, setInfo] = useState<ManagementCommandInfo | null>(null);
  const [values, setValues] = useState<FormValues>({});
  const [preview, setPreview] = useState<CommandPreview | null>(null);
  const [run, setRun] = useState<CommandRun | null>(null);
  const [error, setError] = useState<ErrorInfo | { message: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const historyCall = useCallback(
    () => client.api.commandHistory({ connectionId }),
    [client, connectionId],
  );
  const history = usePolled(historyCall, HISTORY_MS);

  const reset = () => {
    setPreview(null);
    setConfirming(false);
    setError(null);
  };
  const pick = (next: ManagementCommandInfo, nextValues?: FormValues) => {
    setInfo(next);
    setValues(nextValues ?? emptyValues(next));
    setRun(null);
    reset();
  };
  const edit = (next: FormValues) => {
    setValues(next);
    reset();
  };

  const params = info ? toParams(info, values) : null;
  const doPreview = async () => {
    if (!info || !params) return;
    if ('error' in params) return setError({ message: params.error });
    setBusy(true);
    reset();
    const result = await client.api.commandPreview({
      connectionId,
      command: info.name,
      params: params.params,
    });
    setBusy(false);
    if (result.ok) setPreview(result.value);
    else setError(result.error);
  };
  const send = async () => {
    if (!info || !preview || !params || 'error' in params) return;
    setBusy(true);
    setConfirming(false);
    const result = await confirmedCall(client.api, 'commandRun', {
      connectionId,
      command: info.name,
      params: params.params,
      previewId: preview.previewId,
    });
    setBusy(false);
    // The envelope is used (or void): a second Send needs a new preview.
    setPreview(null);
    if (result.ok) {
      setRun(result.value);
      setError(null);
    } else setError(result.error);
    await history.reload();
  };

  const reply = run?.reply as { ok?: unknown; code?: unknown; message?: unknown } | undefined;
  return (
    <Page
      testId="commands-view"
      title="Commands"
      intro="Run any management command: see the signed envelope before it is sent, and the broker's reply."
    >
      <div className="commands-layout">
        <CommandPicker selected={info?.name ?? null} onPick={(c) => pick(c)} />
        <div className="commands-main">
          {!info ? (
            <p className="ops-empty" data-testid="command-none">
              Pick a command on the left (or search for one).
            </p>
          ) : (
            <section className="panel" aria-label={info.name} data-testid="command-editor">
              <h3 className="section-title commands-title">
                <code>{info.name}</code>{' '}
                <span className="muted">
                  {info.scope === 'admin' ? 'admin token' : 'admin token or the realm’s key'}
                  {info.extension ? ' · Switchboard extension' : ''}
                </span>
              </h3>
              <p className="muted commands-summary">{info.summary}</p>
              <CommandForm info={info} values={values} onChange={edit} />
              <div className="commands-actions">
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={() => void doPreview()}
                  data-testid="command-preview"
                >
                  Preview
                </button>
                <button
                  type="button"
                  className={`button ${info.destructive ? 'button--danger' : 'button--primary'}`}
                  disabled={busy || !preview}
                  title={preview ? undefined : 'Preview first: what is sent is what you saw'}
                  onClick={() => (info.destructive ? setConfirming(true) : void send())}
                  data-testid="command-send"
                >
                  Send
                </button>
              </div>
              {confirming && (
                <ConfirmPanel
                  confirmLabel={`Send ${info.name}`}
                  onConfirm={() => void send()}
                  onCancel={() => setConfirming(false)}
                  testId="command-send-confirm"
                >
                  {info.name} is destructive: {info.summary.toLowerCase()}. Send it?
                </ConfirmPanel>
              )}
              <ErrorBanner title="Command:" message={error?.message} testId="command-error" />
              {preview && (
                <div className="commands-envelope" data-testid="command-envelope-box">
                  <p className="muted">
                    <code>{preview.event}</code> signed at{' '}
                    {new Date(preview.signedAt).toLocaleTimeString('en-GB')} by the{' '}
                    {preview.signer.kind === 'admin'
                      ? 'admin token'
                      : `manager key of ${preview.signer.realm}`}
                    ; Send within {Math.round((preview.expiresAt - preview.signedAt) / 60_000)} min.
                    Proof and secrets are masked.
                  </p>
                  {preview.warning && (
                    <p className="commands-warning" role="status" data-testid="command-warning">
                      {preview.warning}
                    </p>
                  )}
                  <pre className="json-viewer commands-pre" data-testid="command-envelope">
                    {preview.envelopeText}
                  </pre>
                </div>
              )}
              {run && (
                <div className="commands-reply" data-testid="command-reply">
                  <p data-testid="command-reply-status">
                    <span className={run.entry.ok ? 'commands-ok' : 'commands-bad'}>
                      {run.entry.ok ? 'ok' : `refused ${String(reply?.code ?? '')}`}
                    </span>{' '}
                    <span className="muted">in {run.entry.durationMs} ms</span>
                    {!run.entry.ok && reply?.message ? ` — ${String(reply.message)}` : ''}
                  </p>
                  {run.unsupported && (
                    <p className="ops-empty" data-testid="command-unsupported">
                      This broker does not offer {run.entry.command} (a plain tyo-mq broker, or an
                      older Switchboard).
                    </p>
                  )}
                  <div className="json-viewer" data-testid="command-reply-tree">
                    <PayloadJsonTree value={run.reply} />
                  </div>
                </div>
              )}
            </section>
          )}
          <CommandHistory
            entries={history.value?.entries ?? []}
            onPick={(entry) => {
              const known = managementCommand(entry.command);
              if (known) pick(known, fromParams(known, entry.params));
            }}
          />
        </div>
      </div>
    </Page>
  );
}
