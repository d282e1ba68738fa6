/**
 * The renderer's zustand store: one slice per domain (zustand "slices pattern"), combined here.
 * `resetAppStore()` restores the initial state (tests call it between cases).
 */
import { create } from 'zustand';
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';
import { createConnectionsSlice, type ConnectionsSlice } from './connections-slice';
import { createOverviewSlice, type OverviewSlice } from './overview-slice';
import { createRequestsSlice, type RequestsSlice } from './requests-slice';
import { createSessionSlice, type SessionSlice } from './session-slice';

export type AppState = OverviewSlice & SessionSlice & RequestsSlice & ConnectionsSlice;

export const useAppStore = create<AppState>()((...args) => ({
  ...createOverviewSlice(...args),
  ...createSessionSlice(...args),
  ...createRequestsSlice(...args),
  ...createConnectionsSlice(...args),
}));

/** Restores every slice to its initial state. */
export function resetAppStore(): void {
  useAppStore.setState(useAppStore.getInitialState(), true);
}

/**
 * The selected connection's state as the top bar shows it: the local broker's process state
 * (`starting`, `restarting`, `stopped` …) while it is not running, else the connection's own
 * (`online`, `unreachable` …; `unknown` before the host reported it).
 */
export function selectedBrokerState(s: AppState): string {
  const localState = s.localBroker?.state ?? null;
  if (s.selectedConnectionId === LOCAL_CONNECTION_ID && localState && localState !== 'running') {
    return localState;
  }
  return s.connections.find((c) => c.id === s.selectedConnectionId)?.state ?? 'unknown';
}
