/**
 * The runs of the selected connection, newest first (the host keeps 50, in memory): command,
 * outcome, time and duration. A click puts the command and its parameters back in the form
 * (secrets empty: they are never kept).
 */
import type { CommandRunEntry } from '../../../../shared/console-api-commands';

export interface CommandHistoryProps {
  entries: readonly CommandRunEntry[];
  onPick(entry: CommandRunEntry): void;
}

export function CommandHistory({ entries, onPick }: CommandHistoryProps) {
  return (
    <section className="panel commands-history" aria-label="History" data-testid="command-history">
      <h3 className="section-title commands-title">History</h3>
      {entries.length === 0 ? (
        <p className="muted">
          Commands sent on this connection show here (kept until the console quits).
        </p>
      ) : (
        <ul className="commands-history__list">
          {entries.map((e) => (
            <li key={e.id}>
              <button
                type="button"
                className="commands-history__item"
                onClick={() => onPick(e)}
                title="Put this command back in the form"
                data-testid="command-history-item"
                data-command={e.command}
              >
                <code>{e.command}</code>
                <span className={e.ok ? 'commands-ok' : 'commands-bad'}>
                  {e.ok ? 'ok' : (e.code ?? 'no answer')}
                </span>
                <span className="muted">
                  {new Date(e.at).toLocaleTimeString('en-GB')} · {e.durationMs} ms
                </span>
                {Object.keys(e.params).length > 0 && (
                  <span className="commands-history__params muted">{JSON.stringify(e.params)}</span>
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
