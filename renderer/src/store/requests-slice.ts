/**
 * Requests slice: each connection's oldest pending authorization request and how many are
 * pending (the sidebar badge; fed by the `pendingRequest` stream and `nextRequest` calls), its realms (`listRealms`), and the state of
 * the last decision. Holds no secret: the ConsoleApi never returns one.
 */
import type { StateCreator } from 'zustand';
import type { AuthorizationRequest, PendingRequest, RealmList } from '../../../shared/console-api';
import type { ErrorInfo } from '../../../shared/error-catalogue';

export interface RequestsSlice {
  pending: Record<string, AuthorizationRequest | null>;
  /** Pending requests per connection (every realm). */
  pendingTotal: Record<string, number>;
  realms: Record<string, RealmList>;
  requestsError: ErrorInfo | null;
  realmsError: ErrorInfo | null;
  /** Why the last approve/reject failed (kept until the next decision). */
  decisionError: ErrorInfo | null;
  deciding: boolean;
  /** The last decision, for a confirmation line. */
  lastDecision: AuthorizationRequest | null;
  applyPending(pending: PendingRequest): void;
  applyRealms(list: RealmList): void;
  setRequestsError(error: ErrorInfo | null): void;
  setRealmsError(error: ErrorInfo | null): void;
  setDecisionError(error: ErrorInfo | null): void;
  setDeciding(deciding: boolean): void;
  setLastDecision(decision: AuthorizationRequest | null): void;
}

export const createRequestsSlice: StateCreator<RequestsSlice, [], [], RequestsSlice> = (set) => ({
  pending: {},
  pendingTotal: {},
  realms: {},
  requestsError: null,
  realmsError: null,
  decisionError: null,
  deciding: false,
  lastDecision: null,
  applyPending: ({ connectionId, request, total }) =>
    set((state) => ({
      pending: { ...state.pending, [connectionId]: request },
      pendingTotal: { ...state.pendingTotal, [connectionId]: total },
    })),
  applyRealms: (list) =>
    set((state) => ({ realms: { ...state.realms, [list.connectionId]: list } })),
  setRequestsError: (requestsError) => set({ requestsError }),
  setRealmsError: (realmsError) => set({ realmsError }),
  setDecisionError: (decisionError) => set({ decisionError }),
  setDeciding: (deciding) => set({ deciding }),
  setLastDecision: (lastDecision) => set({ lastDecision }),
});
