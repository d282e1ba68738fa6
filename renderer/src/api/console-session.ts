/**
 * The page's current ConsoleClient, replaced when a new console link is opened in the same tab.
 *
 * Opening `http://127.0.0.1:<port>/#token=<new>` in a tab already showing that origin changes
 * only the fragment: no reload, just a `hashchange`. The session then reads the new token
 * (stripping it from the address bar), closes the old client and connects a new one; views
 * re-render through `subscribe` (React's `useSyncExternalStore`).
 */
import type { ConsoleApi } from '../../../shared/console-api';
import { bridgeClient, type ConsoleClient } from './console-client';
import {
  takeConsoleToken,
  takeTokenFromFragment,
  type TokenHistory,
  type TokenLocation,
  type TokenStorage,
} from './console-token';
import { createWebConsoleClient } from './web-console-api';

/** The parts of `window` the session uses (a fake in tests). */
export interface SessionWindow {
  location: TokenLocation;
  history: TokenHistory;
  sessionStorage: TokenStorage;
  addEventListener(type: 'hashchange', listener: () => void): void;
  removeEventListener(type: 'hashchange', listener: () => void): void;
  /** Exposed by electron/preload/preload.ts; absent in a browser. */
  switchboard?: ConsoleApi;
}

export interface ConsoleSession {
  /** The client for the current token, or null when the page has none. */
  current(): ConsoleClient | null;
  /** Called after the client was replaced; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Stops listening and closes the current client. */
  close(): void;
}

export function createConsoleSession(
  win: SessionWindow = window,
  connect: (token: string) => ConsoleClient = (token) => createWebConsoleClient({ token }),
): ConsoleSession {
  const listeners = new Set<() => void>();
  if (win.switchboard) {
    // Electron: the preload bridge is the only transport; there are no links to follow.
    const client = bridgeClient(win.switchboard);
    return {
      current: () => client,
      subscribe: () => () => undefined,
      close: () => undefined,
    };
  }
  let token = takeConsoleToken(win.location, win.sessionStorage, win.history);
  let client = token ? connect(token) : null;
  const onHashChange = (): void => {
    const next = takeTokenFromFragment(win.location, win.sessionStorage, win.history);
    if (!next || next === token) return;
    client?.close();
    token = next;
    client = connect(next);
    listeners.forEach((listener) => listener());
  };
  win.addEventListener('hashchange', onHashChange);
  return {
    current: () => client,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      win.removeEventListener('hashchange', onHashChange);
      client?.close();
      client = null;
    },
  };
}
