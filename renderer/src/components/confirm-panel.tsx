/**
 * An inline confirmation step for an action with consequences: what it does, in a sentence, with
 * the action's button and a button that keeps things as they are. Rendered in place of (or under)
 * the button that asked, so it never covers what it is about.
 */
import type { ReactNode } from 'react';

export interface ConfirmPanelProps {
  /** What happens, in words (why the operator might not want it). */
  children: ReactNode;
  confirmLabel: string;
  /** `danger` for a destructive action (default), `primary` otherwise. */
  tone?: 'danger' | 'primary';
  onConfirm: () => void;
  onCancel: () => void;
  /** `data-testid` of the panel; its buttons get `-yes` and `-no`. */
  testId: string;
}

export function ConfirmPanel({
  children,
  confirmLabel,
  tone = 'danger',
  onConfirm,
  onCancel,
  testId,
}: ConfirmPanelProps) {
  return (
    <div
      className={`panel confirm-panel confirm-panel--${tone}`}
      role="alertdialog"
      aria-label="Confirm"
      data-testid={testId}
    >
      <p className="confirm-panel__text">{children}</p>
      <div className="confirm-panel__actions">
        <button
          type="button"
          className={`button button--${tone}`}
          onClick={onConfirm}
          data-testid={`${testId}-yes`}
        >
          {confirmLabel}
        </button>
        <button type="button" className="button" onClick={onCancel} data-testid={`${testId}-no`}>
          Cancel
        </button>
      </div>
    </div>
  );
}
