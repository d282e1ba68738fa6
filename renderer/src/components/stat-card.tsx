/** A labelled figure with an optional secondary line (e.g. a rate under a total). */
import type { ReactNode } from 'react';

export interface StatCardProps {
  label: string;
  value: ReactNode;
  /** `data-testid` of the value element. */
  testId: string;
  /** Raw value for tests and tooling, rendered as `data-value`. */
  rawValue?: string | number | null;
  detail?: ReactNode;
  detailTestId?: string;
}

export function StatCard({ label, value, testId, rawValue, detail, detailTestId }: StatCardProps) {
  return (
    <section className="stat-card" aria-label={label}>
      <h3 className="stat-card__label">{label}</h3>
      <p className="stat-card__value" data-testid={testId} data-value={rawValue ?? undefined}>
        {value}
      </p>
      {detail !== undefined && (
        <p className="stat-card__detail" data-testid={detailTestId}>
          {detail}
        </p>
      )}
    </section>
  );
}
