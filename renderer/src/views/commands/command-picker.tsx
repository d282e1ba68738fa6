/**
 * The Command console's picker: a search box over the catalogue (name, summary, group; every
 * word must match) and the matching commands in their groups, each with its summary and marks
 * for "realm key may sign", "destructive" and "Switchboard extension".
 */
import { useState } from 'react';
import type { ManagementCommandInfo } from '../../../../shared/management-command-catalogue';
import { groupedCommands } from './commands-model';

export interface CommandPickerProps {
  selected: string | null;
  onPick(info: ManagementCommandInfo): void;
}

export function CommandPicker({ selected, onPick }: CommandPickerProps) {
  const [query, setQuery] = useState('');
  const groups = groupedCommands(query);
  return (
    <section className="panel commands-picker" aria-label="Commands">
      <label className="field">
        <span>Find a command</span>
        <input
          type="search"
          value={query}
          placeholder="e.g. realm key, queue, stats"
          onChange={(e) => setQuery(e.target.value)}
          data-testid="command-search"
        />
      </label>
      <div className="commands-picker__list" role="list">
        {groups.length === 0 && <p className="muted">No command matches.</p>}
        {groups.map((g) => (
          <div key={g.group} className="commands-picker__group" role="listitem">
            <h3 className="commands-picker__title">{g.group}</h3>
            <ul>
              {g.commands.map((c) => (
                <li key={c.name}>
                  <button
                    type="button"
                    className={`commands-option${c.name === selected ? ' commands-option--on' : ''}`}
                    aria-pressed={c.name === selected}
                    onClick={() => onPick(c)}
                    data-testid="command-option"
                    data-command={c.name}
                  >
                    <code>{c.name}</code>
                    <span className="commands-option__marks">
                      {c.destructive && (
                        <span className="commands-mark commands-mark--danger">destructive</span>
                      )}
                      {c.scope === 'realm-manager' && (
                        <span className="commands-mark">realm key</span>
                      )}
                      {c.extension && <span className="commands-mark">extension</span>}
                    </span>
                    <span className="commands-option__summary muted">{c.summary}</span>
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </section>
  );
}
