/** The requests slice and its actions, fed by a scripted ConsoleApi (no transport). */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleClient } from '../../renderer/src/api/console-client';
import { resetAppStore, useAppStore } from '../../renderer/src/store/app-store';
import { decideRequest, refreshRequests } from '../../renderer/src/store/request-actions';
import {
  LOCAL_CONNECTION_ID,
  type AuthorizationRequest,
  type ConsoleApi,
  type RealmList,
} from '../../shared/console-api';

const connectionId = LOCAL_CONNECTION_ID;
const request: AuthorizationRequest = {
  requestId: 'authreq-1',
  status: 'pending',
  realm: 'fleet',
  role: 'consumer',
  clientId: 'agent-01',
  clientName: 'Agent 01',
  challenge: null,
  createdAt: 1,
  decidedAt: null,
  decisionReason: null,
};
const realms: RealmList = { connectionId, authEnabled: true, realms: [], inUse: [] };

/** A client whose queue holds `queue` (oldest first); `decideRequest` pops or fails. */
function scripted(queue: AuthorizationRequest[], decideFails = false) {
  const calls: unknown[] = [];
  const api = {
    nextRequest: async () => ({
      ok: true,
      value: { connectionId, request: queue[0] ?? null, total: queue.length },
    }),
    listRealms: async () => ({ ok: true, value: realms }),
    // An approval asks the host for its one-time confirmation first (confirmed-call.ts).
    confirmCall: async () => ({ ok: true, value: { confirmation: 'c-1', expiresAt: 0 } }),
    decideRequest: async (input: unknown) => {
      calls.push(input);
      if (decideFails) {
        return { ok: false, error: { code: 'SWB_ERR_NOT_FOUND', message: 'not pending' } };
      }
      const decided = queue.shift() as AuthorizationRequest;
      return { ok: true, value: { ...decided, status: 'approved', role: 'both' } };
    },
  } as unknown as ConsoleApi;
  const client: ConsoleClient = {
    api,
    connectionState: () => 'online',
    onConnectionState: () => () => undefined,
    close: () => undefined,
  };
  return { client, calls };
}

describe('requests store', () => {
  afterEach(() => resetAppStore());

  it('loads the pending request and the realms', async () => {
    const { client } = scripted([request]);
    await refreshRequests(client, connectionId);
    expect(useAppStore.getState().pending[connectionId]).toEqual(request);
    expect(useAppStore.getState().realms[connectionId]).toEqual(realms);
    useAppStore.getState().applyPending({ connectionId, request: null, total: 0 });
    expect(useAppStore.getState().pending[connectionId]).toBeNull();
    expect(useAppStore.getState().pendingTotal[connectionId]).toBe(0);
  });

  it('keeps the real pending count for the badge, not 0 or 1', async () => {
    const more = [2, 3, 4].map((n) => ({ ...request, requestId: `authreq-${n}` }));
    const { client } = scripted([request, ...more]);
    await refreshRequests(client, connectionId);
    expect(useAppStore.getState().pendingTotal[connectionId]).toBe(4);
  });

  it('approves, records the decision and shows the next request', async () => {
    const second = { ...request, requestId: 'authreq-2', clientId: 'agent-02' };
    const { client, calls } = scripted([request, second]);
    await decideRequest(client, {
      connectionId,
      requestId: 'authreq-1',
      approved: true,
      role: 'both',
    });
    expect(calls).toEqual([
      { connectionId, requestId: 'authreq-1', approved: true, role: 'both', confirmation: 'c-1' },
    ]);
    expect(useAppStore.getState()).toMatchObject({
      deciding: false,
      decisionError: null,
      lastDecision: { requestId: 'authreq-1', status: 'approved' },
    });
    expect(useAppStore.getState().pending[connectionId]?.requestId).toBe('authreq-2');
  });

  it('keeps a refused decision visible as an error', async () => {
    const { client } = scripted([request], true);
    await decideRequest(client, { connectionId, requestId: 'authreq-1', approved: false });
    // The refresh after the failure succeeded, but the decision error must not be wiped.
    expect(useAppStore.getState().requestsError).toBeNull();
    expect(useAppStore.getState().decisionError).toEqual({
      code: 'SWB_ERR_NOT_FOUND',
      message: 'not pending',
    });
  });
});
