/**
 * Connections slice: the console's broker connections (local + remote profiles, no secrets), the
 * connection every view works on, the last test report of each, and where secrets are kept.
 *
 * `selectedConnectionId` is THE field views use to pick their connection (never
 * `LOCAL_CONNECTION_ID` directly): read it with `useAppStore((s) => s.selectedConnectionId)`.
 */
import type { StateCreator } from 'zustand';
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';
import {
  isNewerList,
  type ConnectionsRevision,
  type ConnectionSummary,
  type ConnectionTestReport,
  type SecretStoreInfo,
} from '../../../shared/console-api-connections';
import type { ErrorInfo } from '../../../shared/error-catalogue';

export interface ConnectionsSlice {
  connections: ConnectionSummary[];
  /** The connection the views show and act on. Default: the local broker. */
  selectedConnectionId: string;
  secretStore: SecretStoreInfo | null;
  connectionTests: Record<string, ConnectionTestReport>;
  /** Ids with a test in flight. */
  testingConnections: Record<string, boolean>;
  /** Why the last connection action (add, edit, remove, import…) failed. */
  connectionsError: ErrorInfo | null;
  /** When the list shown was taken; an older list arriving later is dropped. */
  connectionsRevision: ConnectionsRevision | null;
  applyConnections(list: ConnectionSummary[]): void;
  selectConnection(connectionId: string): void;
  setSecretStore(info: SecretStoreInfo): void;
  applyConnectionTest(report: ConnectionTestReport): void;
  setTestingConnection(connectionId: string, testing: boolean): void;
  setConnectionsError(error: ErrorInfo | null): void;
}

/** sessionStorage key of the selected connection, so a reload stays on it. */
const SELECTED_KEY = 'switchboard.selected-connection';

function storage(): Pick<Storage, 'getItem' | 'setItem'> | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // Storage disabled: selection lasts as long as the page.
  }
}

export const createConnectionsSlice: StateCreator<ConnectionsSlice, [], [], ConnectionsSlice> = (
  set,
) => ({
  connections: [],
  // An id that no longer exists falls back to the local broker once the list arrives.
  selectedConnectionId: storage()?.getItem(SELECTED_KEY) || LOCAL_CONNECTION_ID,
  secretStore: null,
  connectionTests: {},
  testingConnections: {},
  connectionsError: null,
  connectionsRevision: null,
  applyConnections: (connections) =>
    set((state) => {
      const revision = connections[0]?.revision ?? null;
      if (revision && !isNewerList(revision, state.connectionsRevision)) return {};
      return {
        connections,
        connectionsRevision: revision ?? state.connectionsRevision,
        // A removed connection cannot stay selected: fall back to the local broker.
        selectedConnectionId: connections.some((c) => c.id === state.selectedConnectionId)
          ? state.selectedConnectionId
          : LOCAL_CONNECTION_ID,
      };
    }),
  selectConnection: (selectedConnectionId) => {
    storage()?.setItem(SELECTED_KEY, selectedConnectionId);
    set({ selectedConnectionId });
  },
  setSecretStore: (secretStore) => set({ secretStore }),
  applyConnectionTest: (report) =>
    set((state) => ({
      connectionTests: { ...state.connectionTests, [report.connectionId]: report },
    })),
  setTestingConnection: (connectionId, testing) =>
    set((state) => ({
      testingConnections: { ...state.testingConnections, [connectionId]: testing },
    })),
  setConnectionsError: (connectionsError) => set({ connectionsError }),
});

/** The selected connection's summary, or undefined before the list has loaded. */
export function selectedConnection(state: ConnectionsSlice): ConnectionSummary | undefined {
  return state.connections.find((c) => c.id === state.selectedConnectionId);
}
