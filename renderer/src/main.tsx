/** Renderer entry: picks the ConsoleApi transport and mounts the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createConsoleClient } from './api/console-client';
import { App } from './app';
import './styles.css';

const client = createConsoleClient();
const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');
createRoot(root).render(
  <StrictMode>
    <App client={client} />
  </StrictMode>,
);
