/**
 * The Requests view's actions: load the pending request and the realms of a connection, and
 * decide a request. Every outcome lands in the requests slice (errors included).
 */
import type { ApprovalRole } from '../../../shared/console-api';
import type { ConsoleClient } from '../api/console-client';
import { confirmedCall } from '../api/confirmed-call';
import { useAppStore } from './app-store';

/** Reloads the oldest pending request and the realm list of `connectionId`. */
export async function refreshRequests(
  client: ConsoleClient,
  connectionId: string,
  store = useAppStore,
): Promise<void> {
  const [next, realms] = await Promise.all([
    client.api.nextRequest({ connectionId }),
    client.api.listRealms({ connectionId }),
  ]);
  const state = store.getState();
  if (next.ok) state.applyPending(next.value);
  state.setRequestsError(next.ok ? null : next.error);
  if (realms.ok) state.applyRealms(realms.value);
  state.setRealmsError(realms.ok ? null : realms.error);
}

/** Approves (with `role`) or rejects (with `reason`) request `requestId`, then refreshes. */
export async function decideRequest(
  client: ConsoleClient,
  input: {
    connectionId: string;
    requestId: string;
    approved: boolean;
    role?: ApprovalRole;
    reason?: string;
  },
  store = useAppStore,
): Promise<void> {
  const { setDeciding, setDecisionError, setLastDecision } = store.getState();
  setDeciding(true);
  setDecisionError(null);
  try {
    // An approval carries a one-time confirmation the host mints for it (confirmed-call.ts).
    const result = await confirmedCall(client.api, 'decideRequest', input);
    if (result.ok) setLastDecision(result.value);
    else setDecisionError(result.error);
    await refreshRequests(client, input.connectionId, store);
  } finally {
    setDeciding(false);
  }
}
