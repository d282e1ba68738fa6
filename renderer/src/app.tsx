/** App shell: top bar with the link state and the section navigation (Overview, Requests). */
import { useEffect, useState, type ComponentType } from 'react';
import type { ConsoleClient } from './api/console-client';
import { StatusBadge, type BadgeTone } from './components/status-badge';
import { resetAppStore, useAppStore } from './store/app-store';
import { bindConsole } from './store/bind-console';
import { OverviewView } from './views/overview-view';
import { RequestsView } from './views/requests-view';
import { DemoView } from './views/demo-view';
import { LocalBrokerView } from './views/local-broker-view';
import { TapView } from './views/tap-view';

/** The sections of the navigation, in order, each with its view (one line per section). */
const SECTIONS: { id: string; label: string; View: ComponentType<{ client: ConsoleClient }> }[] = [
  { id: 'overview', label: 'Overview', View: OverviewView },
  { id: 'requests', label: 'Requests', View: RequestsView },
  { id: 'tap', label: 'Live tap', View: TapView },
  { id: 'local', label: 'Local broker', View: LocalBrokerView },
  { id: 'demo', label: 'Demo', View: DemoView },
];
type Section = string;

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
        (() => {
          const View = (SECTIONS.find(({ id }) => id === section) ?? SECTIONS[0])!.View;
          return <View client={client} />;
        })()
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
