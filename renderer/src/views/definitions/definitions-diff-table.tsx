/**
 * The diff of an import (shared/definitions-diff.ts) as a table: kind, name, what happens
 * (added / changed / removed / unchanged), the changed fields and the notes (what the import will
 * not do and why); after Apply, each row's outcome (ok / error with the broker's reason /
 * skipped). Rows the import leaves unchanged are folded into the counts line. A token row reads
 * by its role and realm ("admin token (all realms)"), not as a client token.
 */
import type { ApplyResult } from '../../../../shared/console-api-definitions';
import type { DefinitionsDiff, DiffItem, FieldChange } from '../../../../shared/definitions-diff';
import { operatorMessage } from '../../operator-message';

const KIND_LABELS: Record<DiffItem['kind'], string> = {
  setting: 'Setting',
  realm: 'Realm',
  token: 'Token',
  management_token: 'Management token',
  validator: 'Validator',
};

const value = (v: FieldChange['from']): string => (v === null ? '—' : String(v));

function outcomeText(result: ApplyResult | undefined): string | null {
  if (!result) return null;
  if (result.outcome === 'ok')
    return `applied (${result.commands.map((c) => c.command).join(', ')})`;
  if (result.outcome === 'skipped') return 'skipped';
  const failed = result.commands.find((c) => !c.ok);
  return `failed: ${failed?.message ? operatorMessage(failed.message) : 'refused'}`;
}

export function DefinitionsDiffTable({
  diff,
  results,
}: {
  diff: DefinitionsDiff;
  results: ApplyResult[] | null;
}) {
  const rows = diff.items.filter((i) => i.status !== 'unchanged');
  const byId = new Map((results ?? []).map((r) => [r.id, r]));
  if (rows.length === 0) {
    return (
      <p className="ops-empty" data-testid="definitions-no-change">
        This broker already has these definitions: nothing to apply.
      </p>
    );
  }
  return (
    <table className="queues-table definitions-table" data-testid="definitions-diff">
      <thead>
        <tr>
          <th>Item</th>
          <th>Change</th>
          <th>Details</th>
          {results && <th>Result</th>}
        </tr>
      </thead>
      <tbody>
        {rows.map((item) => {
          const result = byId.get(item.id);
          return (
            <tr
              key={item.id}
              data-testid="definitions-row"
              data-id={item.id}
              data-status={item.status}
              data-outcome={result?.outcome}
            >
              <td className="queues-cell--name" data-label="Item">
                <span className="muted">{item.label ?? KIND_LABELS[item.kind]}</span>{' '}
                <code>{item.name}</code>
              </td>
              <td data-label="Change">
                <span className={`definitions-status definitions-status--${item.status}`}>
                  {item.status}
                </span>
                {!item.applicable && <span className="muted"> · not applied</span>}
              </td>
              <td data-label="Details">
                {item.changes.length > 0 && (
                  <ul className="definitions-changes">
                    {item.changes.map((c) => (
                      <li key={c.field}>
                        <code>{c.field}</code>: {value(c.from)} → {value(c.to)}
                      </li>
                    ))}
                  </ul>
                )}
                {item.notes.map((note) => (
                  <p key={note} className="muted definitions-note">
                    {note}
                  </p>
                ))}
              </td>
              {results && (
                <td data-label="Result" data-testid="definitions-result">
                  <span
                    className={
                      result?.outcome === 'error' ? 'definitions-result--error' : undefined
                    }
                  >
                    {outcomeText(result) ?? '—'}
                  </span>
                </td>
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
