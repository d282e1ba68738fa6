/** A coloured pill for a broker or link state. */
export type BadgeTone = 'ok' | 'busy' | 'bad' | 'idle';

export interface StatusBadgeProps {
  label: string;
  tone: BadgeTone;
  testId?: string;
}

export function StatusBadge({ label, tone, testId }: StatusBadgeProps) {
  return (
    <span className={`badge badge--${tone}`} data-testid={testId} data-state={label}>
      <span className="badge__dot" aria-hidden="true" />
      {label}
    </span>
  );
}
