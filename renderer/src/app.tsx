/**
 * App shell: top bar (brand, the connection switcher with the selected connection's state, the
 * console link state), the grouped section navigation (components/section-nav.tsx: a sidebar, a
 * menu on narrow screens) and the section of the URL's hash route (`#/realms`,
 * navigation/hash-route.ts; none or unknown → Overview). A refused or missing console token
 * gets one full-page screen; while the console host is unreachable everything is marked stale
 * and every control is disabled (a disabled fieldset around the view).
 */
import { useCallback, useEffect, useState, type ComponentType } from 'react';
import type { ConsoleClient } from './api/console-client';
import { ConnectionSwitcher } from './components/connection-switcher';
import { HostAccessScreen, StaleBanner } from './components/host-screens';
import { SectionMenuButton, SectionNav } from './components/section-nav';
import { StatusBadge, type BadgeTone } from './components/status-badge';
import { ThemeToggle } from './components/theme-toggle';
import { useHashRoute } from './navigation/hash-route';
import { resetAppStore, useAppStore } from './store/app-store';
import { bindConsole } from './store/bind-console';
import { ConnectionsView } from './views/connections/connections-view';
import { OverviewView } from './views/overview/overview-view';
import { RequestsView } from './views/requests/requests-view';
import { RealmsView } from './views/realms/realms-view';
import { TokensView } from './views/tokens/tokens-view';
import { ActivityView } from './views/activity/activity-view';
import { useRequestNotifications } from './views/requests/request-notifications';
import { ClientsView } from './views/clients/clients-view';
import { DeadLettersView } from './views/dead-letters/dead-letters-view';
import { QueuesView } from './views/queues/queues-view';
import { RetainedView } from './views/retained/retained-view';
import { CommandsView } from './views/commands/commands-view';
import { DefinitionsView } from './views/definitions/definitions-view';
import { TopicsView } from './views/topics/topics-view';
import { IdentitiesView } from './views/identities/identities-view';
import { ResourcesView } from './views/resources/resources-view';
import { AlarmChip } from './views/resources/alarm-chip';
import { useAlarmWatch } from './views/resources/alarm-watch';
import { DemoView } from './views/demo/demo-view';
import { LocalBrokerView } from './views/local-broker/local-broker-view';
import { TapView } from './views/tap/tap-view';
import './styles/app-shell.css';

/**
 * One section of the app: add yours with one line. Its URL is `#/<id>`; `group` is the title of
 * the navigation group it is listed in (entries of a group are listed in this order). Views read
 * `selectedConnectionId`.
 */
interface Section {
  id: string;
  label: string;
  group: string;
  View: ComponentType<{ client: ConsoleClient }>;
}
const SECTIONS: Section[] = [
  { id: 'overview', label: 'Overview', group: 'Monitor', View: OverviewView },
  { id: 'clients', label: 'Clients', group: 'Monitor', View: ClientsView },
  { id: 'tap', label: 'Live tap', group: 'Monitor', View: TapView },
  { id: 'topics', label: 'Topic tree', group: 'Monitor', View: TopicsView },
  { id: 'resources', label: 'Resources', group: 'Monitor', View: ResourcesView },
  { id: 'requests', label: 'Requests', group: 'Manage', View: RequestsView },
  { id: 'realms', label: 'Realms', group: 'Manage', View: RealmsView },
  { id: 'tokens', label: 'Tokens', group: 'Manage', View: TokensView },
  { id: 'identities', label: 'E2EE identities', group: 'Manage', View: IdentitiesView },
  { id: 'definitions', label: 'Definitions', group: 'Manage', View: DefinitionsView },
  { id: 'queues', label: 'Queues', group: 'Operations', View: QueuesView },
  { id: 'retained', label: 'Retained', group: 'Operations', View: RetainedView },
  { id: 'dead-letters', label: 'Dead letters', group: 'Operations', View: DeadLettersView },
  { id: 'commands', label: 'Commands', group: 'Operations', View: CommandsView },
  { id: 'activity', label: 'Activity', group: 'Operations', View: ActivityView },
  { id: 'local', label: 'Broker process', group: 'Local', View: LocalBrokerView },
  { id: 'demo', label: 'Demo', group: 'Local', View: DemoView },
  { id: 'connections', label: 'Connections', group: 'Setup', View: ConnectionsView },
];
const SECTION_IDS = SECTIONS.map((entry) => entry.id);

const LINK_TONES: Record<string, BadgeTone> = {
  online: 'ok',
  connecting: 'busy',
  offline: 'bad',
  unauthorized: 'bad',
};

export function App({ client }: { client: ConsoleClient | null }) {
  const connection = useAppStore((s) => s.connection);
  const pendingCount = useAppStore((s) => s.pendingTotal[s.selectedConnectionId] ?? 0);
  const { section: sectionId } = useHashRoute(SECTION_IDS);
  const [menuOpen, setMenuOpen] = useState(false);
  const onMenuOpenChange = useCallback((open: boolean) => setMenuOpen(open), []);
  // A new view starts at its top, not at the scroll position of the previous one.
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [sectionId]);
  useRequestNotifications(client);
  const alarms = useAlarmWatch(client);
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
        <SectionMenuButton
          currentLabel={section.label}
          pendingCount={pendingCount}
          open={menuOpen}
          onOpenChange={onMenuOpenChange}
        />
        <h1 className="topbar__brand">Switchboard</h1>
        <fieldset className="topbar__tools" disabled={stale}>
          <ConnectionSwitcher />
          <AlarmChip alarms={alarms} />
          <StatusBadge
            label={linkLabel}
            tone={LINK_TONES[connection] ?? 'idle'}
            testId="link-status"
          />
        </fieldset>
        <ThemeToggle />
      </header>
      {stale && <StaleBanner />}
      <div className="app__body">
        <SectionNav
          entries={SECTIONS}
          current={section.id}
          pendingCount={pendingCount}
          open={menuOpen}
          onOpenChange={onMenuOpenChange}
        />
        <fieldset className="app__content" disabled={stale} data-testid="app-content">
          <section.View client={client} />
        </fieldset>
      </div>
    </div>
  );
}
