/**
 * App shell: top bar (brand, sections, the connection switcher with the selected connection's
 * state, the console link state) and the selected section. A refused or missing console token
 * gets one full-page screen; while the console host is unreachable everything is marked stale
 * and every control is disabled (a disabled fieldset around the view).
 */
import { useEffect, useState, type ComponentType } from 'react';
import type { ConsoleClient } from './api/console-client';
import { ConnectionSwitcher } from './components/connection-switcher';
import { HostAccessScreen, StaleBanner } from './components/host-screens';
import { StatusBadge, type BadgeTone } from './components/status-badge';
import { ThemeToggle } from './components/theme-toggle';
import { resetAppStore, useAppStore } from './store/app-store';
import { bindConsole } from './store/bind-console';
import { ConnectionsView } from './views/connections-view';
import { OverviewView } from './views/overview-view';
import { RequestsView } from './views/requests-view';
import { RealmsView } from './views/realms-view';
import { TokensView } from './views/tokens-view';
import { ActivityView } from './views/activity-view';
import { useRequestNotifications } from './views/request-notifications';
import { ClientsView } from './views/clients-view';
import { DeadLettersView } from './views/dead-letters-view';
import { DemoView } from './views/demo-view';
import { LocalBrokerView } from './views/local-broker-view';
import { TapView } from './views/tap-view';
import './styles/app-shell.css';

/** One section of the app: add yours with one line. Views read `selectedConnectionId`. */
interface Section {
  id: string;
  label: string;
  View: ComponentType<{ client: ConsoleClient }>;
}
const SECTIONS: Section[] = [
  { id: 'overview', label: 'Overview', View: OverviewView },
  { id: 'requests', label: 'Requests', View: RequestsView },
  { id: 'realms', label: 'Realms', View: RealmsView },
  { id: 'tokens', label: 'Tokens', View: TokensView },
  { id: 'dead-letters', label: 'Dead letters', View: DeadLettersView },
  { id: 'clients', label: 'Clients', View: ClientsView },
  { id: 'tap', label: 'Live tap', View: TapView },
  { id: 'activity', label: 'Activity', View: ActivityView },
  { id: 'local', label: 'Local broker', View: LocalBrokerView },
  { id: 'demo', label: 'Demo', View: DemoView },
  { id: 'connections', label: 'Connections', View: ConnectionsView },
];

const LINK_TONES: Record<string, BadgeTone> = {
  online: 'ok',
  connecting: 'busy',
  offline: 'bad',
  unauthorized: 'bad',
};

export function App({ client }: { client: ConsoleClient | null }) {
  const connection = useAppStore((s) => s.connection);
  const pendingCount = useAppStore((s) => (s.pending[s.selectedConnectionId] ? 1 : 0));
  const [sectionId, setSectionId] = useState<string>('overview');
  useRequestNotifications(client);
  useEffect(() => {
    if (!client) return undefined;
    // A new client is a new console (a new link): nothing of the previous one applies.
    resetAppStore();
    return bindConsole(client);
  }, [client]);

  if (!client) return <HostAccessScreen reason="missing" />;
  if (connection === 'unauthorized') return <HostAccessScreen reason="refused" />;

  const stale = connection === 'offline';
  const section = SECTIONS.find((entry) => entry.id === sectionId) ?? SECTIONS[0]!;
  const linkLabel = stale ? 'console unreachable' : `console ${connection}`;
  return (
    <div className={`app${stale ? ' app--stale' : ''}`} data-stale={stale || undefined}>
      <header className="topbar">
        <h1 className="topbar__brand">Switchboard</h1>
        <nav className="topbar__nav" aria-label="Sections">
          {SECTIONS.map(({ id, label }) => (
            <button
              key={id}
              type="button"
              className={`topbar__link${section.id === id ? ' topbar__link--active' : ''}`}
              aria-current={section.id === id ? 'page' : undefined}
              onClick={() => setSectionId(id)}
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
        <fieldset className="topbar__tools" disabled={stale}>
          <ConnectionSwitcher />
          <StatusBadge
            label={linkLabel}
            tone={LINK_TONES[connection] ?? 'idle'}
            testId="link-status"
          />
        </fieldset>
        <ThemeToggle />
      </header>
      {stale && <StaleBanner />}
      <fieldset className="app__content" disabled={stale} data-testid="app-content">
        <section.View client={client} />
      </fieldset>
    </div>
  );
}
