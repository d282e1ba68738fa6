/**
 * A read-only JSON viewer: pretty-printed, with keys, strings, numbers and literals coloured and
 * objects/arrays collapsible. Text that is not valid JSON (a cut payload) is shown as is.
 */
import { useMemo, useState, type ReactNode } from 'react';

function Value({ value, depth }: { value: unknown; depth: number }): ReactNode {
  const [open, setOpen] = useState(depth < 3);
  if (value === null) return <span className="json-lit">null</span>;
  if (typeof value === 'string') return <span className="json-str">{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span className="json-num">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="json-lit">{String(value)}</span>;
  const isArray = Array.isArray(value);
  const entries = isArray
    ? (value as unknown[]).map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  const [openMark, closeMark] = isArray ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return <span>{openMark + closeMark}</span>;
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
          {entries.map(([key, child], index) => (
            <span key={key} className="json-line">
              {!isArray && <span className="json-key">{JSON.stringify(key)}</span>}
              {!isArray && ': '}
              <Value value={child} depth={depth + 1} />
              {index < entries.length - 1 ? ',' : ''}
            </span>
          ))}
        </span>
      ) : (
        <span className="muted"> {entries.length} … </span>
      )}
      {closeMark}
    </span>
  );
}

export function JsonViewer({ text, testId }: { text: string; testId?: string }) {
  const parsed = useMemo((): { ok: true; value: unknown } | { ok: false } => {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: false };
    }
  }, [text]);
  return (
    <pre className="json-viewer" data-testid={testId}>
      {parsed.ok ? <Value value={parsed.value} depth={0} /> : text}
    </pre>
  );
}
