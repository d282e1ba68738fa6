/**
 * The Dead letters page's header: how many entries are loaded, match the search and are
 * selected, and the page's own actions — follow mode, Refresh, Export (JSON lines).
 */
import { formatCount } from '../../format';

export interface DeadLettersHeaderProps {
  loaded: number;
  /** Entries the search matches (the count is shown only when it differs from `loaded`). */
  matching: number;
  selected: number;
  follow: boolean;
  /** A replay or discard is running: no Refresh meanwhile. */
  busy: boolean;
  onFollow: (on: boolean) => void;
  onRefresh: () => void;
  onExport: () => void;
}

export function DeadLettersHeader(props: DeadLettersHeaderProps) {
  const { loaded, matching, selected, follow, busy } = props;
  return (
    <header className="page__header">
      <div>
        <h2 className="page__title">Dead letters</h2>
        <p className="muted" data-testid="dlq-count">
          {formatCount(loaded)} loaded
          {matching !== loaded && ` · ${formatCount(matching)} match`}
          {selected > 0 && ` · ${formatCount(selected)} selected`}
        </p>
      </div>
      <div className="page__actions ops-wrap">
        <label
          className="ops-check"
          title="Load new dead letters every second as they arrive, and keep the newest in view"
        >
          <input
            type="checkbox"
            checked={follow}
            onChange={(e) => props.onFollow(e.target.checked)}
            data-testid="dlq-follow"
          />
          Follow new entries
        </label>
        <button
          type="button"
          className="button"
          disabled={busy}
          onClick={props.onRefresh}
          data-testid="dlq-refresh"
        >
          Refresh
        </button>
        <button
          type="button"
          className="button"
          disabled={matching === 0}
          onClick={props.onExport}
          data-testid="dlq-export"
        >
          Export {selected ? 'selected' : 'shown'} (JSON lines)
        </button>
      </div>
    </header>
  );
}
