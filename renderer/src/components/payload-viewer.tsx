/**
 * One payload in tabs (issue 27): JSON tree, Text, Hex (`offset / 16 bytes / ASCII`) and
 * Base64, with its size in bytes and a Copy button for what the open tab shows.
 *
 * Input is the payload as JSON text, as the console host hands it over (tap rows, dead
 * letters, queue peeks), optionally cut. `enc: "base64"` (from a delivery envelope) makes a
 * string payload binary; a string that merely looks like base64 gets a "decode" switch instead,
 * since plain text such as `"abcd"` is valid base64 too. See payload-bytes.ts for what the
 * size counts.
 */
import { useMemo, useState } from 'react';
import { formatBytes, formatCount } from '../format';
import '../styles/operations.css';
import '../styles/payload.css';
import {
  HEX_PAGE_ROWS,
  describePayload,
  hexDumpText,
  hexRowCount,
  hexRows,
  isBase64,
  toBase64,
} from './payload-bytes';
import { PayloadJsonTree } from './payload-json-tree';

export type PayloadTab = 'tree' | 'text' | 'hex' | 'base64';

const TAB_LABELS: Record<PayloadTab, string> = {
  tree: 'JSON tree',
  text: 'Text',
  hex: 'Hex',
  base64: 'Base64',
};

/** Characters of Text / Base64 shown before "show all" (the DOM gets slow past this). */
export const PAYLOAD_TEXT_CAP = 100_000;

export interface PayloadViewerProps {
  /** The payload as JSON text (possibly cut, then it is read as plain text). */
  text: string;
  /** The envelope's `enc`; `"base64"` makes a string payload binary. */
  enc?: string | null;
  /** A note on what is shown, e.g. `first 2,048 of 5.2 M characters`. */
  cutNote?: string | null;
  /** The tabs offered (default all that fit the payload; the tree needs parsed JSON). */
  tabs?: readonly PayloadTab[];
  /** Prefix of the parts' `data-testid`s (default `payload`). */
  testId?: string;
}

function Capped({ text, testId }: { text: string; testId: string }) {
  const [all, setAll] = useState(false);
  const cut = !all && text.length > PAYLOAD_TEXT_CAP;
  return (
    <>
      <pre className="payload-pre" data-testid={testId}>
        {cut ? text.slice(0, PAYLOAD_TEXT_CAP) : text}
      </pre>
      {cut && (
        <button type="button" className="payload-more" onClick={() => setAll(true)}>
          show all {formatCount(text.length)} characters
        </button>
      )}
    </>
  );
}

function HexDump({ bytes, testId }: { bytes: Uint8Array; testId: string }) {
  const [rows, setRows] = useState(HEX_PAGE_ROWS);
  const total = hexRowCount(bytes);
  const shown = useMemo(() => hexRows(bytes, 0, rows), [bytes, rows]);
  return (
    <>
      <pre className="payload-pre payload-hex" data-testid={testId} data-rows={shown.length}>
        {shown.map((r, i) => (
          <span key={r.offset} className="payload-hex__row">
            {i > 0 && '\n'}
            <span className="payload-hex__offset">{r.offset}</span> {r.hex}{' '}
            <span className="payload-hex__ascii">{r.ascii}</span>
          </span>
        ))}
      </pre>
      {rows < total && (
        <button
          type="button"
          className="payload-more"
          onClick={() => setRows(rows + HEX_PAGE_ROWS)}
          data-testid={`${testId}-more`}
        >
          show {formatBytes(Math.min(HEX_PAGE_ROWS * 16, bytes.length - rows * 16))} more of{' '}
          {formatBytes(bytes.length - rows * 16)} left
        </button>
      )}
    </>
  );
}

export function PayloadViewer({
  text,
  enc,
  cutNote,
  tabs,
  testId = 'payload',
}: PayloadViewerProps) {
  const [decode, setDecode] = useState(false);
  const effectiveEnc = enc ?? (decode ? 'base64' : null);
  const payload = useMemo(() => describePayload(text, effectiveEnc), [text, effectiveEnc]);
  // Once decoded the reading is binary: the switch stays, so it can be turned off again.
  const offerDecode =
    !enc &&
    (decode ||
      (payload.kind === 'json' && typeof payload.value === 'string' && isBase64(payload.value)));
  const treeFits =
    payload.kind === 'json' && typeof payload.value === 'object' && payload.value !== null;
  const offered = (tabs ?? ['tree', 'text', 'hex', 'base64']).filter(
    (t) => t !== 'tree' || treeFits,
  );
  const preferred: PayloadTab = payload.kind === 'binary' ? 'hex' : treeFits ? 'tree' : 'text';
  const [chosen, setChosen] = useState<PayloadTab | null>(null);
  const tab =
    chosen && offered.includes(chosen)
      ? chosen
      : offered.includes(preferred)
        ? preferred
        : (offered[0] ?? 'text');
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  // Only the open tab's form is built (the React compiler memoises it per render inputs).
  const base64 = tab === 'base64' ? toBase64(payload.bytes) : '';

  const tabText = (): string => {
    if (tab === 'hex') return hexDumpText(hexRows(payload.bytes, 0, hexRowCount(payload.bytes)));
    if (tab === 'base64') return base64;
    return payload.text;
  };
  const copy = (): void => {
    navigator.clipboard.writeText(tabText()).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };

  return (
    <div className="payload-viewer" data-testid={testId} data-kind={payload.kind}>
      <div className="payload-viewer__bar">
        <div className="ops-segmented" role="tablist" aria-label="Payload view">
          {offered.map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              aria-selected={tab === t}
              className={`ops-segmented__item${tab === t ? ' ops-segmented__item--on' : ''}`}
              onClick={() => {
                setChosen(t);
                setCopied(null);
              }}
              data-testid={`${testId}-tab-${t}`}
            >
              {TAB_LABELS[t]}
            </button>
          ))}
        </div>
        <span
          className="badge badge--idle"
          data-testid={`${testId}-size`}
          data-bytes={payload.bytes.length}
          title={
            payload.kind === 'binary'
              ? 'Decoded bytes'
              : 'Bytes of the JSON text in UTF-8 (what the broker carries)'
          }
        >
          {payload.kind === 'binary' ? 'binary · ' : ''}
          {formatBytes(payload.bytes.length)}
        </span>
        {offerDecode && (
          <label className="payload-viewer__decode">
            <input
              type="checkbox"
              checked={decode}
              onChange={(e) => setDecode(e.target.checked)}
              data-testid={`${testId}-decode`}
            />{' '}
            decode base64
          </label>
        )}
        <button
          type="button"
          className="button payload-viewer__copy"
          onClick={copy}
          data-testid={`${testId}-copy`}
        >
          {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
        </button>
      </div>
      {cutNote && <p className="muted payload-viewer__note">{cutNote}</p>}
      {payload.note && <p className="muted payload-viewer__note">{payload.note}</p>}
      <div role="tabpanel" aria-label={TAB_LABELS[tab]}>
        {tab === 'tree' && (
          <pre className="json-viewer payload-tree" data-testid={`${testId}-tree`}>
            <PayloadJsonTree value={payload.value} />
          </pre>
        )}
        {tab === 'text' && <Capped text={payload.text} testId={`${testId}-text`} />}
        {tab === 'hex' && <HexDump bytes={payload.bytes} testId={`${testId}-hex`} />}
        {tab === 'base64' && <Capped text={base64} testId={`${testId}-base64`} />}
      </div>
    </div>
  );
}
