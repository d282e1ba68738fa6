/**
 * The diff of two payloads (issue 27): added / removed / changed JSON paths when both parse as
 * JSON, else a line diff of their text (payload-diff-model.ts). Each payload is JSON text as
 * the console host hands it over; `aLabel` / `bLabel` name them (e.g. the messages' times).
 */
import { useMemo } from 'react';
import { formatCount } from '../format';
import '../styles/payload.css';
import { diffPayloads, shortJson, type JsonChange } from './payload-diff-model';

export interface PayloadDiffProps {
  a: string;
  b: string;
  aLabel: string;
  bLabel: string;
  onClose?: () => void;
  testId?: string;
}

const SIGN: Record<JsonChange['kind'], string> = { added: '+', removed: '−', changed: '~' };

function changeText(c: JsonChange): string {
  if (c.kind === 'added') return `added ${shortJson(c.after)}`;
  if (c.kind === 'removed') return `removed ${shortJson(c.before)}`;
  return `${shortJson(c.before)} → ${shortJson(c.after)}`;
}

export function PayloadDiff({
  a,
  b,
  aLabel,
  bLabel,
  onClose,
  testId = 'payload-diff',
}: PayloadDiffProps) {
  const diff = useMemo(() => diffPayloads(a, b), [a, b]);
  const same =
    diff.kind === 'json'
      ? diff.diff.changes.length === 0
      : diff.lines.every((l) => l.op === 'same');
  return (
    <section className="panel payload-diff" data-testid={testId} data-kind={diff.kind}>
      <header className="payload-diff__header">
        <h3 className="section-title">Diff</h3>
        {onClose && (
          <button
            type="button"
            className="button"
            onClick={onClose}
            data-testid={`${testId}-close`}
          >
            Close
          </button>
        )}
      </header>
      <p className="muted">
        <span className="payload-diff__item--removed">− {aLabel}</span> →{' '}
        <span className="payload-diff__item--added">+ {bLabel}</span>
        {diff.kind === 'json'
          ? ` · ${formatCount(diff.diff.changes.length + diff.diff.more)} changed paths`
          : ' · not both JSON (or cut): compared line by line'}
      </p>
      {same ? (
        <p data-testid={`${testId}-same`}>The two payloads are the same.</p>
      ) : diff.kind === 'json' ? (
        <ul className="payload-diff__list" data-testid={`${testId}-changes`}>
          {diff.diff.changes.map((c) => (
            <li
              key={`${c.kind}:${c.path}`}
              className={`payload-diff__item payload-diff__item--${c.kind}`}
              data-testid={`${testId}-change`}
              data-kind={c.kind}
              data-path={c.path}
            >
              {SIGN[c.kind]} <span className="payload-diff__path">{c.path}</span> {changeText(c)}
            </li>
          ))}
          {diff.diff.more > 0 && (
            <li className="payload-diff__item muted">
              … and {formatCount(diff.diff.more)} more changes
            </li>
          )}
        </ul>
      ) : (
        <ol className="payload-diff__list" data-testid={`${testId}-lines`}>
          {diff.lines.map((l, i) => (
            <li
              key={i}
              className={`payload-diff__item payload-diff__item--${l.op}`}
              data-testid={`${testId}-line`}
              data-op={l.op}
            >
              {l.op === 'added' ? '+ ' : l.op === 'removed' ? '− ' : '  '}
              {l.text}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
