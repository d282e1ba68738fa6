/**
 * Session slice: the state of the link to the host (web socket / IPC), the last failed action and
 * whether a broker restart is in progress.
 */
import type { StateCreator } from 'zustand';
import type { ErrorInfo } from '../../../shared/error-catalogue';
import type { ConnectionState } from '../api/console-client';

export interface SessionSlice {
  connection: ConnectionState;
  actionError: ErrorInfo | null;
  restarting: boolean;
  setConnection(state: ConnectionState): void;
  setActionError(error: ErrorInfo | null): void;
  setRestarting(restarting: boolean): void;
}

export const createSessionSlice: StateCreator<SessionSlice, [], [], SessionSlice> = (set) => ({
  connection: 'connecting',
  actionError: null,
  restarting: false,
  setConnection: (connection) => set({ connection }),
  setActionError: (actionError) => set({ actionError }),
  setRestarting: (restarting) => set({ restarting }),
});
