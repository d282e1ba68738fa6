/**
 * A collapsible JSON tree for the payload viewer: keys, strings, numbers and literals
 * coloured (the `.json-*` classes of operations.css), nodes below depth 2 start closed, and
 * an object or array shows its first `JSON_TREE_PAGE` entries with "show more" for the rest,
 * so a payload with 100 000 items renders a page, not 100 000 rows.
 */
import { useState, type ReactNode } from 'react';
import { formatCount } from '../format';

/** Entries of one object/array rendered per "show more" step. */
export const JSON_TREE_PAGE = 100;

function JsonNode({ value, depth }: { value: unknown; depth: number }): ReactNode {
  const [open, setOpen] = useState(depth < 2);
  const [shown, setShown] = useState(JSON_TREE_PAGE);
  if (value === null) return <span className="json-lit">null</span>;
  if (typeof value === 'string') return <span className="json-str">{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span className="json-num">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="json-lit">{String(value)}</span>;
  if (typeof value !== 'object') return <span>{String(value)}</span>;
  const isArray = Array.isArray(value);
  const keys = isArray ? null : Object.keys(value);
  const count = isArray ? value.length : keys!.length;
  const [openMark, closeMark] = isArray ? ['[', ']'] : ['{', '}'];
  if (count === 0) return <span>{openMark + closeMark}</span>;
  const visible = Math.min(count, shown);
  const lines: ReactNode[] = [];
  for (let i = 0; i < visible; i++) {
    const key = isArray ? String(i) : keys![i]!;
    const child = isArray ? (value as unknown[])[i] : (value as Record<string, unknown>)[key];
    lines.push(
      <span key={key} className="json-line">
        {!isArray && <span className="json-key">{JSON.stringify(key)}</span>}
        {!isArray && ': '}
        <JsonNode value={child} depth={depth + 1} />
        {i < count - 1 ? ',' : ''}
      </span>,
    );
  }
  return (
    <span>
      <button
        type="button"
        className="json-toggle"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        title={open ? 'Collapse' : 'Expand'}
      >
        {open ? '▾' : '▸'}
      </button>
      {openMark}
      {open ? (
        <span className="json-block">
          {lines}
          {visible < count && (
            <span className="json-line">
              <button
                type="button"
                className="payload-more"
                onClick={() => setShown(shown + JSON_TREE_PAGE)}
                data-testid="payload-tree-more"
              >
                show {formatCount(Math.min(JSON_TREE_PAGE, count - visible))} more of{' '}
                {formatCount(count - visible)} left
              </button>
            </span>
          )}
        </span>
      ) : (
        <span className="muted">
          {' '}
          {formatCount(count)} {isArray ? 'items' : 'keys'}{' '}
        </span>
      )}
      {closeMark}
    </span>
  );
}

/** The tree of one parsed JSON value. */
export function PayloadJsonTree({ value }: { value: unknown }) {
  return <JsonNode value={value} depth={0} />;
}
