/** App shell: top bar with the link state, and the (for now single) Overview page. */
import { useEffect } from 'react';
import type { ConsoleClient } from './api/console-client';
import { StatusBadge, type BadgeTone } from './components/status-badge';
import { resetAppStore, useAppStore } from './store/app-store';
import { bindConsole } from './store/bind-console';
import { OverviewView } from './views/overview-view';

const LINK_TONES: Record<string, BadgeTone> = {
  online: 'ok',
  connecting: 'busy',
  offline: 'bad',
  unauthorized: 'bad',
};

export function App({ client }: { client: ConsoleClient | null }) {
  const connection = useAppStore((s) => s.connection);
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
          <span className="topbar__link topbar__link--active" aria-current="page">
            Overview
          </span>
        </nav>
        <StatusBadge
          label={client ? `console ${connection}` : 'console not connected'}
          tone={client ? (LINK_TONES[connection] ?? 'idle') : 'bad'}
          testId="link-status"
        />
      </header>
      {client ? (
        <OverviewView client={client} />
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
