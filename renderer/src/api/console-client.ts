/**
 * Picks the ConsoleApi transport: Electron's preload bridge (`window.switchboard`) when present,
 * else the web host (HTTP + WebSocket) using the token from the URL fragment.
 */
import type { ConsoleApi } from '../../../shared/console-api';
import { takeConsoleToken } from './console-token';
import { createWebConsoleClient } from './web-console-api';

declare global {
  interface Window {
    /** Exposed by electron/preload/preload.ts; absent in a browser. */
    switchboard?: ConsoleApi;
  }
}

/** Health of the link to the host (not of the broker). Electron IPC is always `online`. */
export type ConnectionState = 'connecting' | 'online' | 'offline' | 'unauthorized';

/** A ConsoleApi plus what the UI needs to know about its transport. */
export interface ConsoleClient {
  api: ConsoleApi;
  connectionState(): ConnectionState;
  onConnectionState(listener: (state: ConnectionState) => void): () => void;
  close(): void;
}

/** The client for this page, or null when neither the bridge nor a web token is available. */
export function createConsoleClient(): ConsoleClient | null {
  const bridge = window.switchboard;
  if (bridge) {
    return {
      api: bridge,
      connectionState: () => 'online',
      onConnectionState: () => () => undefined,
      close: () => undefined,
    };
  }
  const token = takeConsoleToken();
  return token ? createWebConsoleClient({ token }) : null;
}
