/**
 * The ConsoleClient: a ConsoleApi plus the state of its transport. Electron's preload bridge
 * (`window.switchboard`) or the web host (HTTP + WebSocket, web-console-api.ts); which one, and
 * with which token, is decided by console-session.ts.
 */
import type { ConsoleApi } from '../../../shared/console-api';

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

/** A client over Electron's preload bridge: IPC is always `online`. */
export function bridgeClient(bridge: ConsoleApi): ConsoleClient {
  return {
    api: bridge,
    connectionState: () => 'online',
    onConnectionState: () => () => undefined,
    close: () => undefined,
  };
}
