/**
 * The frame every view shares: a `<main class="page">` with its title, a one-paragraph intro and
 * an optional element at the header's end (a status badge, a button), then the view's content.
 */
import type { ReactNode } from 'react';

export interface PageProps {
  /** `data-testid` of the `<main>`, e.g. `tap-view`. */
  testId: string;
  title: ReactNode;
  /** The muted paragraph under the title: what the view is for. */
  intro?: ReactNode;
  /** Shown at the end of the header row. */
  aside?: ReactNode;
  children?: ReactNode;
}

export function Page({ testId, title, intro, aside, children }: PageProps) {
  return (
    <main className="page" data-testid={testId}>
      <header className="page__header">
        <div>
          <h2 className="page__title">{title}</h2>
          {intro !== undefined && <p className="muted">{intro}</p>}
        </div>
        {aside}
      </header>
      {children}
    </main>
  );
}
