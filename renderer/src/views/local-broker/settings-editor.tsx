/**
 * The local broker's settings file: a text editor checked by the host with the broker's own
 * schemas as you type (debounced), every problem listed inline with its path (and line/column
 * for JSON syntax). Keys the broker accepts but ignores (not implemented in this build) are
 * listed as warnings with their paths, and the save result names them instead of claiming the
 * broker uses everything. Save is possible only once the text is valid; the file is then written
 * atomically and the broker reloads it (or restarts, for start-up keys) — the result says which.
 * The HTTP publish switches above the text (http-publish-switches.tsx) edit the same text.
 * Unsaved edits survive leaving the view (settings-draft.ts): on return the draft is back, with
 * a line saying so, and whether the file changed on disk meanwhile.
 */
import { useEffect, useState } from 'react';
import type {
  SettingsCheck,
  SettingsIssue,
  SettingsSave,
} from '../../../../shared/console-api-local';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { HttpPublishSwitches } from './http-publish-switches';
import { dropSettingsDraft, keepSettingsDraft, readSettingsDraft } from './settings-draft';

const CHECK_DELAY_MS = 300;

function savedMessage(save: SettingsSave): string {
  const pending = save.restartKeys.length
    ? ` Start-up keys changed (${save.restartKeys.join(', ')}) — they apply after a restart.`
    : '';
  const ignored = save.warnings.map((w) => w.path);
  const except = ignored.length
    ? `, except ${ignored.join(', ')}, which ${ignored.length === 1 ? 'it' : 'they'} ignores (not implemented)`
    : '';
  if (save.applied === 'restart')
    return `Saved. The broker was restarted with the new file${except}.`;
  if (save.applied === 'reload')
    return `Saved. The broker reloaded the file and uses it now${except}.${pending}`;
  return `Saved. The broker is not running: it reads the file when it starts${except}.`;
}

/** One problem or warning, with its path and, for JSON syntax, its line and column. */
function IssueItem({ issue, testId }: { issue: SettingsIssue; testId: string }) {
  return (
    <li className="settings-issue" data-testid={testId}>
      <code className="settings-issue__path">{issue.path}</code>
      {issue.line !== null && (
        <span className="muted">
          {' '}
          (line {issue.line}, column {issue.column})
        </span>
      )}
      : {issue.message}
    </li>
  );
}

export function SettingsEditor({ client }: { client: ConsoleClient }) {
  const [path, setPath] = useState('');
  const [text, setText] = useState<string | null>(null);
  const [check, setCheck] = useState<SettingsCheck | null>(null);
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [saved, setSaved] = useState<SettingsSave | null>(null);
  /** The file's text on disk that the edits started from. */
  const [base, setBase] = useState('');
  /** Set when a kept draft was restored: whether the file changed on disk since. */
  const [restored, setRestored] = useState<{ diskChanged: boolean } | null>(null);

  const load = (): Promise<void> =>
    client.api.readLocalSettings({}).then((result) => {
      if (!result.ok) return setError(result.error);
      dropSettingsDraft(result.value.path);
      setPath(result.value.path);
      setText(result.value.text);
      setBase(result.value.text);
      setDirty(false);
      setRestored(null);
      setError(null);
    });

  useEffect(() => {
    let live = true;
    void client.api.readLocalSettings({}).then((result) => {
      if (!live) return;
      if (!result.ok) return setError(result.error);
      const { path: file, text: disk } = result.value;
      const draft = readSettingsDraft(file);
      setPath(file);
      if (draft && draft.text !== disk) {
        setText(draft.text);
        setBase(draft.base);
        setDirty(true);
        setRestored({ diskChanged: draft.base !== disk });
      } else {
        dropSettingsDraft(file);
        setText(disk);
        setBase(disk);
      }
    });
    return () => {
      live = false;
    };
  }, [client]);

  const edit = (next: string): void => {
    setText(next);
    setDirty(true);
    setSaved(null);
    if (path !== '') keepSettingsDraft(path, next, base);
  };

  useEffect(() => {
    if (text === null) return undefined;
    let live = true;
    const timer = setTimeout(() => {
      void client.api.validateLocalSettings({ text }).then((result) => {
        if (!live) return;
        if (result.ok) setCheck(result.value);
        else setError(result.error);
      });
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [client, text]);

  const save = async (restart: boolean): Promise<void> => {
    if (text === null) return;
    setBusy(true);
    setError(null);
    setSaved(null);
    const result = await client.api.saveLocalSettings({ text, restart });
    if (!result.ok) setError(result.error);
    else {
      setCheck(result.value);
      if (result.value.saved) {
        setSaved(result.value);
        setDirty(false);
        setRestored(null);
        setBase(text);
        dropSettingsDraft(path);
      }
    }
    setBusy(false);
  };

  const invalid = check !== null && !check.valid;
  return (
    <section className="panel settings-editor" aria-label="Settings file">
      <div className="settings-editor__head">
        <h3 className="section-title settings-editor__title">Settings file</h3>
        <code className="muted settings-editor__path" data-testid="settings-path">
          {path}
        </code>
      </div>
      {restored && dirty && (
        <p className="muted" role="status" data-testid="settings-draft-restored">
          Your unsaved edits are back.
          {restored.diskChanged
            ? ' The file changed on disk since you began: Reload from disk shows it (and drops them).'
            : ' Save them, or Reload from disk to drop them.'}
        </p>
      )}
      <HttpPublishSwitches text={text} onChange={edit} />
      <textarea
        className={`code-editor settings-editor__text${invalid ? ' code-editor--invalid' : ''}`}
        spellCheck={false}
        rows={16}
        value={text ?? ''}
        disabled={text === null}
        aria-invalid={invalid || undefined}
        aria-describedby="settings-issues"
        onChange={(e) => edit(e.target.value)}
        data-testid="settings-text"
      />
      <div id="settings-issues" aria-live="polite">
        {invalid ? (
          <ul className="settings-issues" data-testid="settings-issues">
            {check.issues.map((issue, i) => (
              <IssueItem key={i} issue={issue} testId="settings-issue" />
            ))}
          </ul>
        ) : (
          check && (
            <p className="muted settings-ok" data-testid="settings-valid">
              {check.warnings.length > 0
                ? `Valid. The broker ignores ${check.warnings.length === 1 ? 'one key' : `${check.warnings.length} keys`}, listed below.`
                : 'Valid.'}
              {check.restartKeys.length > 0 &&
                ` Changed start-up keys (${check.restartKeys.join(', ')}) need a restart.`}
            </p>
          )
        )}
        {check && check.warnings.length > 0 && (
          <ul className="settings-issues settings-issues--warning" data-testid="settings-warnings">
            {check.warnings.map((warning, i) => (
              <IssueItem key={i} issue={warning} testId="settings-warning" />
            ))}
          </ul>
        )}
      </div>
      <div className="settings-editor__actions">
        <button
          type="button"
          className="button button--primary"
          disabled={busy || invalid || !dirty || check === null}
          onClick={() => void save(false)}
          data-testid="settings-save"
        >
          {busy ? 'Saving…' : 'Save (broker reloads it)'}
        </button>
        <button
          type="button"
          className="button"
          disabled={busy || invalid || check === null}
          onClick={() => void save(true)}
          data-testid="settings-save-restart"
        >
          Save and restart
        </button>
        <button
          type="button"
          className="button"
          disabled={busy}
          onClick={() => void load()}
          data-testid="settings-revert"
        >
          Reload from disk
        </button>
      </div>
      {saved && (
        <p className="settings-saved" role="status" data-testid="settings-saved">
          {savedMessage(saved)}
        </p>
      )}
      <ErrorBanner title="Settings:" message={error?.message} testId="settings-error" />
    </section>
  );
}
