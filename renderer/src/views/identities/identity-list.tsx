/**
 * The virtualised list of the E2EE identities view (`@tanstack/react-virtual`, as the
 * dead-letter list): only the rows in view (plus a few) are in the DOM, since a realm may hold
 * thousands of identities. One row: the identity, its keys and pin, its prekey stock (a
 * warning badge below `PREKEY_LOW_WATER` one-time prekeys), its push registrations.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useRef } from 'react';
import { PREKEY_LOW_WATER, type IdentityRow } from '../../../../shared/console-api-identities';
import { StatusBadge } from '../../components/status-badge';
import { formatCountOf } from '../../format';

/** Fixed row height, px (the virtualiser's estimate; rows never grow). */
export const IDENTITY_ROW_HEIGHT = 64;

/** Whether the identity's one-time prekey pool is below the low-water mark. */
export function prekeysLow(row: IdentityRow): boolean {
  return row.prekeys !== null && row.prekeys.oneTimeAvailable < PREKEY_LOW_WATER;
}

/** The prekey badge: how many one-time prekeys are left, warning when few. */
export function PrekeyBadge({ row }: { row: IdentityRow }) {
  if (!row.prekeys) return null;
  const left = row.prekeys.oneTimeAvailable;
  return (
    <StatusBadge
      label={prekeysLow(row) ? `low prekeys: ${left}` : `${left} prekeys`}
      tone={prekeysLow(row) ? 'busy' : 'ok'}
      testId="identity-prekeys"
    />
  );
}

const IdentityListRow = memo(function IdentityListRow(props: {
  row: IdentityRow;
  top: number;
  focused: boolean;
  onFocus: (identity: string) => void;
}) {
  const { row } = props;
  const first = row.keys[0];
  return (
    <div
      role="listitem"
      className={`ops-row${props.focused ? ' ops-row--focused ops-row--selected' : ''}`}
      style={{ transform: `translateY(${props.top}px)`, height: IDENTITY_ROW_HEIGHT }}
      data-testid="identity-row"
      data-identity={row.identity}
    >
      <button type="button" className="ops-row__main" onClick={() => props.onFocus(row.identity)}>
        <span className="ops-row__line">
          <strong className="ops-row__origin">{row.identity}</strong>
          <span className="identity-badges">
            <PrekeyBadge row={row} />
            {row.principalPrefix ? (
              <span className="ops-flag ops-flag--console" title="Pinned to one credential">
                pinned
              </span>
            ) : null}
          </span>
        </span>
        <span className="ops-row__line muted">
          <span className="identity-row__keys">{formatCountOf(row.keys.length, 'key')}</span>
          {first && (
            <code className="ops-row__payload" title={first.fingerprint}>
              {first.keyId} · {first.fingerprint.slice(0, 16)}…
            </code>
          )}
          {row.push.length > 0 && (
            <span className="ops-row__time">{formatCountOf(row.push.length, 'push endpoint')}</span>
          )}
        </span>
      </button>
    </div>
  );
});

export interface IdentityListProps {
  rows: IdentityRow[];
  focused: string | null;
  onFocus: (identity: string) => void;
}

export const IdentityList = memo(function IdentityList({
  rows,
  focused,
  onFocus,
}: IdentityListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // The virtualiser re-renders this list itself on scroll; the compiler not memoising it is fine.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => IDENTITY_ROW_HEIGHT,
    overscan: 8,
  });
  return (
    <div
      ref={scrollRef}
      className="ops-list identity-list"
      // A short realm gets a short list (the shared list keeps a tall box for scrolling).
      style={{ height: `min(62vh, 640px, ${rows.length * IDENTITY_ROW_HEIGHT + 2}px)` }}
      data-testid="identity-list"
      role="list"
      aria-label="E2EE identities"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          return (
            <IdentityListRow
              key={row.identity}
              row={row}
              top={item.start}
              focused={focused === row.identity}
              onFocus={onFocus}
            />
          );
        })}
      </div>
    </div>
  );
});
