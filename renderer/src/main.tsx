/** Renderer entry: picks the ConsoleApi transport (console-session.ts) and mounts the app. */
import { StrictMode, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { createConsoleSession } from './api/console-session';
import { App } from './app';
import './styles.css';
import './styles/forms.css';
import { applyTheme, browserThemeStorage, readThemePreference } from './theme';

// Before the first render, so a chosen theme never flashes the system one.
applyTheme(document.documentElement, readThemePreference(browserThemeStorage()));

const session = createConsoleSession();

/** Re-renders the app with a new client when a new console link is opened in this tab. */
function Root() {
  const client = useSyncExternalStore(session.subscribe, session.current);
  return <App client={client} />;
}

const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');
createRoot(root).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
