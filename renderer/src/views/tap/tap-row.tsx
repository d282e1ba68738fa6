/**
 * The pieces of the live tap's list (tap-view.tsx): one message row, the realm suggestions, and
 * how a message is named in the payload diff.
 */
import { memo } from 'react';
import type { TapMessage } from '../../../../shared/console-api-tap';
import type { RealmList } from '../../../../shared/console-api';
import { formatChars, formatCount } from '../../format';
import { useAppStore } from '../../store/app-store';

/** Stable fallback: a fresh `[]` per render makes zustand re-render forever (React error #185). */
const NO_REALMS: RealmList['realms'] = [];

export function RealmOptions({ connectionId }: { connectionId: string }) {
  const realms = useAppStore((s) => s.realms[connectionId]?.realms ?? NO_REALMS);
  return (
    <datalist id="tap-realms">
      {realms.map((realm) => (
        <option key={realm.name} value={realm.name} />
      ))}
      <option value="*" />
    </datalist>
  );
}

/** How much of a cut payload the page holds, in words. */
export function cutNote(m: TapMessage): string | null {
  return m.truncated
    ? `showing the first ${formatCount(m.payload.length)} of ${formatChars(m.size)}`
    : null;
}

interface TapRowProps {
  message: TapMessage;
  open: boolean;
  picked: boolean;
  onOpen: (seq: number) => void;
  onPick: (seq: number, on: boolean) => void;
}

/** One message row; memoised, so a new batch renders only its new rows. */
export const TapRow = memo(function TapRow({
  message: m,
  open,
  picked,
  onOpen,
  onPick,
}: TapRowProps) {
  return (
    <li
      className={`tap-row${open ? ' tap-row--open' : ''}`}
      data-testid="tap-row"
      aria-current={open || undefined}
    >
      <span className="tap-row__time">{new Date(m.at).toLocaleTimeString('en-GB')}</span>
      <span className="tap-row__event" data-testid="tap-row-event">
        {m.event}
      </span>
      <span className="tap-row__from">from {m.from}</span>
      <code className="tap-row__payload" data-testid="tap-row-payload">
        {m.payload}
        {m.truncated && '…'}
      </code>
      <span className="tap-row__tools">
        <label className="tap-row__pick" title="Pick two messages to compare their payloads">
          <input
            type="checkbox"
            checked={picked}
            onChange={(e) => onPick(m.seq, e.target.checked)}
            data-testid="tap-row-pick"
          />{' '}
          compare
        </label>
        <button
          type="button"
          className="button tap-row__view"
          aria-expanded={open}
          onClick={() => onOpen(m.seq)}
          data-testid="tap-row-view"
        >
          {open ? 'Hide' : 'View'}
        </button>
      </span>
      {m.truncated && (
        <span className="tap-row__size" data-testid="tap-row-size" data-size={m.size}>
          {cutNote(m)}
        </span>
      )}
    </li>
  );
});

/** Time and event of a message, naming it in the diff. */
export function label(m: TapMessage): string {
  return `${new Date(m.at).toLocaleTimeString('en-GB')} ${m.event}`;
}
