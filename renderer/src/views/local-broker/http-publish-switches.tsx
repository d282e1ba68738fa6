/**
 * Switches for the local broker's HTTP publish and SSE subscribe (`http_publish`,
 * docs/http-publish.md) above the settings file's editor: on/off, the stream caps per realm and
 * per IP, and the catch-up history mode. Each change rewrites the editor's text
 * (http-publish-model.ts); saving stays the editor's Save, checked by the host as any edit.
 */
import { readHttpPublish, withHttpPublish, type HttpPublishPatch } from './http-publish-model';

export interface HttpPublishSwitchesProps {
  /** The editor's text (null while it loads). */
  text: string | null;
  onChange: (text: string) => void;
}

export function HttpPublishSwitches({ text, onChange }: HttpPublishSwitchesProps) {
  const view = text === null ? null : readHttpPublish(text);
  const set = (patch: HttpPublishPatch) => {
    if (text === null) return;
    const next = withHttpPublish(text, patch);
    if (next !== null) onChange(next);
  };
  const count = (value: string): number | null => {
    const n = Number(value);
    return Number.isInteger(n) && n > 0 ? n : null;
  };
  return (
    <fieldset
      className="http-publish-switches"
      disabled={view === null}
      data-testid="http-publish-switches"
    >
      <legend>HTTP publish and SSE</legend>
      {view === null && text !== null && (
        <p className="muted small">Fix the settings file below to use these switches.</p>
      )}
      <label className="http-publish-switches__toggle">
        <input
          type="checkbox"
          checked={view?.enabled ?? false}
          onChange={(e) => set({ enabled: e.target.checked })}
          data-testid="http-publish-enabled"
        />
        {/* One text box: the flex label would lay each <code> out as its own column. */}
        <span>
          Enabled{' '}
          <span className="muted">
            (<code>POST /pub</code>, <code>GET /sub</code>, <code>POST /sub-ticket</code>)
          </span>
        </span>
      </label>
      <label className="field">
        Streams per realm
        <input
          type="number"
          min={1}
          value={view?.sseMaxPerRealm ?? ''}
          onChange={(e) => {
            const n = count(e.target.value);
            if (n !== null) set({ sseMaxPerRealm: n });
          }}
          data-testid="http-publish-per-realm"
        />
      </label>
      <label className="field">
        Streams per IP
        <input
          type="number"
          min={1}
          value={view?.sseMaxPerIp ?? ''}
          onChange={(e) => {
            const n = count(e.target.value);
            if (n !== null) set({ sseMaxPerIp: n });
          }}
          data-testid="http-publish-per-ip"
        />
      </label>
      <label className="field">
        Catch-up history
        <select
          value={view?.history ?? 'always'}
          onChange={(e) =>
            set({ history: e.target.value === 'subscribed' ? 'subscribed' : 'always' })
          }
          data-testid="http-publish-history"
        >
          <option value="always">always</option>
          <option value="subscribed">only while subscribed</option>
        </select>
      </label>
    </fieldset>
  );
}
