/**
 * Definitions (issue 27, like RabbitMQ's definitions export/import): Export saves the selected
 * broker's realms, tokens' metadata, validators and settings as one versioned JSON file — keys as
 * SHA-256 only, or, when the operator opts in, encrypted under a passphrase by the console host
 * (the page only ever holds the encrypted document). Import reads a file (or pasted text), shows
 * the diff against this broker, and after a confirmation applies it as signed, audited commands,
 * with each row's result; removals run only when "Also remove" is ticked.
 */
import { useState, type ChangeEvent } from 'react';
import type {
  DefinitionsApply,
  DefinitionsPreview,
} from '../../../../shared/console-api-definitions';
import type { Result } from '../../../../shared/console-api';
import {
  MAX_DEFINITIONS_CHARS,
  definitionsTooLargeMessage,
} from '../../../../shared/definitions-document';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import { ConfirmPanel } from '../../components/confirm-panel';
import { ErrorBanner } from '../../components/error-banner';
import { Page } from '../../components/page';
import { downloadText } from '../../download-text';
import { formatCountOf } from '../../format';
import { useConnectionId } from '../../hooks/use-connection-id';
import { useConsoleAction } from '../../hooks/use-console-action';
import { useAppStore } from '../../store/app-store';
import { DefinitionsDiffTable } from './definitions-diff-table';
import '../../styles/operations.css';
import '../../styles/queues.css';
import '../../styles/definitions.css';

/** The passphrase field, or undefined when empty (the host then treats keys as hashed). */
const optional = (text: string): string | undefined => (text === '' ? undefined : text);

export function DefinitionsView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const connections = useAppStore((s) => s.connections);
  const exporting = useConsoleAction();
  const previewing = useConsoleAction();
  const applying = useConsoleAction();
  const [encrypt, setEncrypt] = useState(false);
  const [exportPass, setExportPass] = useState('');
  const [exportPassAgain, setExportPassAgain] = useState('');
  // A typo in a passphrase nobody can read back makes the exported keys unrecoverable.
  const passMismatch = encrypt && exportPassAgain !== '' && exportPassAgain !== exportPass;
  const [text, setText] = useState('');
  const [importPass, setImportPass] = useState('');
  const [preview, setPreview] = useState<DefinitionsPreview | null>(null);
  const [removals, setRemovals] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [applied, setApplied] = useState<DefinitionsApply | null>(null);

  const reset = () => {
    setPreview(null);
    setApplied(null);
    setConfirming(false);
    previewing.clear();
    applying.clear();
  };

  const runExport = () =>
    void exporting.run(
      () =>
        client.api.exportDefinitions({
          connectionId,
          ...(encrypt ? { passphrase: exportPass } : {}),
        }),
      (v) => {
        downloadText(v.fileName, 'application/json', v.text);
        // "tokens", not "client tokens": the count holds admin tokens too (trial finding 17).
        return `Saved ${v.fileName}: ${formatCountOf(v.realms, 'realm')}, ${formatCountOf(v.tokens, 'token')} (metadata only), ${
          v.encrypted
            ? 'keys encrypted with your passphrase.'
            : 'keys as SHA-256 only (they are not exported).'
        }`;
      },
    );

  const readFile = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    void file.text().then((content) => {
      setText(content);
      reset();
    });
  };

  const importInput = () => ({ connectionId, text, passphrase: optional(importPass) });

  // Said here, before sending: the host would refuse the call with a bare validation error.
  const tooLarge = (): Result<never> => ({
    ok: false,
    error: {
      code: 'SWB_ERR_PAYLOAD_TOO_LARGE',
      message: definitionsTooLargeMessage(text.length),
    },
  });

  const runPreview = () =>
    void previewing
      .run(
        async () =>
          text.length > MAX_DEFINITIONS_CHARS
            ? tooLarge()
            : client.api.previewDefinitions(importInput()),
        (v) =>
          `From ${v.source.name} (${v.source.url}), exported ${v.source.exportedAt}: ${v.diff.counts.added} added, ${v.diff.counts.changed} changed, ${v.diff.counts.removed} removed, ${v.diff.counts.unchanged} unchanged.`,
      )
      .then((v) => {
        setApplied(null);
        if (v) setPreview(v);
      });

  const runApply = () => {
    setConfirming(false);
    void applying
      .run(
        () =>
          confirmedCall(client.api, 'applyDefinitions', {
            ...importInput(),
            applyRemovals: removals,
          }),
        (v) =>
          `${v.applied} applied, ${v.failed} failed, ${v.skipped} skipped${v.failed > 0 ? ': see the failed rows below.' : '.'}`,
      )
      .then((v) => {
        if (v) setApplied(v);
      });
  };

  const hidesKeys = preview !== null && preview.encrypted && importPass === '';
  const target = connections.find((c) => c.id === preview?.connectionId)?.name ?? 'this broker';
  const offered = preview?.diff.applicable ?? { added: 0, changed: 0, removed: 0 };

  return (
    <Page
      testId="definitions-view"
      title="Definitions"
      intro="Export this broker's realms, tokens' metadata and settings as one file, or import a file into it: a diff first, then signed commands, each recorded in Activity."
    >
      <div className="definitions-panels">
        <section className="panel" aria-label="Export">
          <h3 className="ops-detail__sub">Export</h3>
          <label className="definitions-choice">
            <input
              type="radio"
              name="definitions-keys"
              checked={!encrypt}
              onChange={() => setEncrypt(false)}
              data-testid="definitions-export-hashed"
            />
            Keys as SHA-256 only (the keys are not exported)
          </label>
          <label className="definitions-choice">
            <input
              type="radio"
              name="definitions-keys"
              checked={encrypt}
              onChange={() => setEncrypt(true)}
              data-testid="definitions-export-encrypted"
            />
            Include realm and manager keys, encrypted with a passphrase
          </label>
          {encrypt && (
            <label className="field">
              Passphrase (at least 8 characters; needed to import the keys)
              <input
                type="password"
                autoComplete="new-password"
                value={exportPass}
                onChange={(e) => setExportPass(e.target.value)}
                data-testid="definitions-export-passphrase"
              />
            </label>
          )}
          {encrypt && (
            <label className="field">
              Passphrase again
              <input
                type="password"
                autoComplete="new-password"
                value={exportPassAgain}
                onChange={(e) => setExportPassAgain(e.target.value)}
                aria-invalid={passMismatch}
                data-testid="definitions-export-passphrase-again"
              />
              {passMismatch && (
                <span
                  className="field-error"
                  role="alert"
                  data-testid="definitions-export-mismatch"
                >
                  The two passphrases differ.
                </span>
              )}
            </label>
          )}
          <div>
            <button
              type="button"
              className="button button--primary"
              disabled={
                exporting.busy ||
                (encrypt && (exportPass.length < 8 || exportPassAgain !== exportPass))
              }
              onClick={runExport}
              data-testid="definitions-export"
            >
              Export definitions
            </button>
          </div>
          <ErrorBanner
            title="Export:"
            message={exporting.error?.message}
            testId="definitions-export-error"
          />
          {exporting.message && (
            <p className="action-line" role="status" data-testid="definitions-export-message">
              {exporting.message}
            </p>
          )}
        </section>

        <section className="panel" aria-label="Import">
          <h3 className="ops-detail__sub">Import</h3>
          <label className="field">
            Definitions file
            <input
              type="file"
              accept="application/json,.json"
              onChange={readFile}
              data-testid="definitions-file"
            />
          </label>
          <label className="field">
            …or paste its contents
            <textarea
              className="definitions-text"
              value={text}
              spellCheck={false}
              onChange={(e) => {
                setText(e.target.value);
                reset();
              }}
              data-testid="definitions-text"
            />
          </label>
          <label className="field">
            Passphrase (only for a file with encrypted keys)
            <input
              type="password"
              autoComplete="off"
              value={importPass}
              onChange={(e) => {
                setImportPass(e.target.value);
                reset();
              }}
              data-testid="definitions-import-passphrase"
            />
          </label>
          <div>
            <button
              type="button"
              className="button"
              disabled={previewing.busy || text.trim() === ''}
              onClick={runPreview}
              data-testid="definitions-preview"
            >
              Show differences
            </button>
          </div>
          <ErrorBanner
            title="Import:"
            message={previewing.error?.message}
            testId="definitions-import-error"
          />
          {previewing.message && (
            <p className="action-line" role="status" data-testid="definitions-preview-message">
              {previewing.message}
            </p>
          )}
        </section>
      </div>

      {preview && (
        <section className="panel" aria-label="Differences" data-testid="definitions-diff-panel">
          <h3 className="ops-detail__sub" data-testid="definitions-diff-title">
            Differences with {target}
          </h3>
          {hidesKeys && (
            <p className="muted" data-testid="definitions-keys-hidden">
              This file holds encrypted keys: enter its passphrase and show the differences again to
              import them. Without it, keys stay as they are.
            </p>
          )}
          <DefinitionsDiffTable diff={preview.diff} results={applied?.results ?? null} />
          <div className="row-actions">
            <label className="definitions-choice">
              <input
                type="checkbox"
                checked={removals && offered.removed > 0}
                disabled={offered.removed === 0}
                onChange={(e) => setRemovals(e.target.checked)}
                data-testid="definitions-removals"
              />
              {/* Only what an import removes: rows marked "not applied" are never sent. */}
              Also remove what the file does not have ({offered.removed})
            </label>
            {!confirming && (
              <button
                type="button"
                className="button button--primary"
                disabled={applying.busy}
                onClick={() => setConfirming(true)}
                data-testid="definitions-apply"
              >
                Apply…
              </button>
            )}
          </div>
          {confirming && (
            <ConfirmPanel
              confirmLabel="Apply definitions"
              tone={removals ? 'danger' : 'primary'}
              onConfirm={runApply}
              onCancel={() => setConfirming(false)}
              testId="definitions-confirm"
            >
              Send the commands for {offered.added} added and {offered.changed} changed items to{' '}
              {target}
              {removals && offered.removed > 0
                ? `, and remove ${formatCountOf(offered.removed, 'item')}`
                : ''}
              ? Rows marked “not applied” are left as they are.
            </ConfirmPanel>
          )}
          <ErrorBanner
            title="Apply:"
            message={applying.error?.message}
            testId="definitions-apply-error"
          />
          {applying.message && (
            <p
              className={`action-line${applied && applied.failed > 0 ? ' definitions-result--error' : ''}`}
              role="status"
              data-testid="definitions-apply-message"
            >
              {applying.message}
            </p>
          )}
        </section>
      )}
    </Page>
  );
}
