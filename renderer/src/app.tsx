/** App shell: top bar with the link state and the section navigation (Overview, Requests). */
import { useEffect, useState } from 'react';
import type { ConsoleClient } from './api/console-client';
import { StatusBadge, type BadgeTone } from './components/status-badge';
import { resetAppStore, useAppStore } from './store/app-store';
import { bindConsole } from './store/bind-console';
import { OverviewView } from './views/overview-view';
import { RequestsView } from './views/requests-view';
import { RealmsView } from './views/realms-view';
import { TokensView } from './views/tokens-view';
import { ActivityView } from './views/activity-view';
import { useRequestNotifications } from './views/request-notifications';

type Section = 'overview' | 'requests' | 'realms' | 'tokens' | 'activity';
const SECTIONS: { id: Section; label: string; View: typeof OverviewView }[] = [
  { id: 'overview', label: 'Overview', View: OverviewView },
  { id: 'requests', label: 'Requests', View: RequestsView },
  { id: 'realms', label: 'Realms', View: RealmsView },
  { id: 'tokens', label: 'Tokens', View: TokensView },
  { id: 'activity', label: 'Activity', View: ActivityView },
];

const LINK_TONES: Record<string, BadgeTone> = {
  online: 'ok',
  connecting: 'busy',
  offline: 'bad',
  unauthorized: 'bad',
};

export function App({ client }: { client: ConsoleClient | null }) {
  const connection = useAppStore((s) => s.connection);
  const pendingCount = useAppStore((s) => Object.values(s.pending).filter(Boolean).length);
  const [section, setSection] = useState<Section>('overview');
  useRequestNotifications(client);
  const View = SECTIONS.find(({ id }) => id === section)?.View ?? OverviewView;
  useEffect(() => {
    if (!client) return undefined;
    // A new client is a new console (a new link): nothing of the previous one applies.
    resetAppStore();
    return bindConsole(client);
  }, [client]);

  return (
    <div className="app">
      <header className="topbar">
        <h1 className="topbar__brand">Switchboard</h1>
        <nav className="topbar__nav" aria-label="Sections">
          {SECTIONS.map(({ id, label }) => (
            <button
              key={id}
              type="button"
              className={`topbar__link${section === id ? ' topbar__link--active' : ''}`}
              aria-current={section === id ? 'page' : undefined}
              onClick={() => setSection(id)}
              data-testid={`nav-${id}`}
            >
              {label}
              {id === 'requests' && pendingCount > 0 && (
                <span className="nav-count" data-testid="nav-requests-count">
                  {' '}
                  ({pendingCount})
                </span>
              )}
            </button>
          ))}
        </nav>
        <StatusBadge
          label={client ? `console ${connection}` : 'console not connected'}
          tone={client ? (LINK_TONES[connection] ?? 'idle') : 'bad'}
          testId="link-status"
        />
      </header>
      {client ? (
        <View client={client} />
      ) : (
        <main className="page">
          <div className="error-banner" role="alert">
            This page needs the console link printed by <code>npm run console</code> (it carries the
            access token after <code>#token=</code>).
          </div>
        </main>
      )}
      {connection === 'unauthorized' && (
        <div className="error-banner error-banner--floating" role="alert">
          The console refused this page&apos;s token. Open the link printed by{' '}
          <code>npm run console</code> again.
        </div>
      )}
    </div>
  );
}
