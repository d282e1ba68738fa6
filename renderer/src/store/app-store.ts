/**
 * The renderer's zustand store: one slice per domain (zustand "slices pattern"), combined here.
 * `resetAppStore()` restores the initial state (tests call it between cases).
 */
import { create } from 'zustand';
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
