/**
 * Feeds the store from a ConsoleClient: initial `getLocalBroker` / `getOverview` calls, then the
 * `overview` and `localBroker` event streams and the transport's connection state.
 * Also the actions the views trigger (`restartLocalBroker`).
 */
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';
import type { ConsoleClient } from '../api/console-client';
import { useAppStore } from './app-store';
import { refreshRequests } from './request-actions';

/** Starts feeding the store; returns a function that stops it. */
export function bindConsole(client: ConsoleClient, store = useAppStore): () => void {
  const state = store.getState();
  const stops = [
    client.api.on('overview', (overview) => store.getState().applyOverview(overview)),
    client.api.on('localBroker', (status) => {
      store.getState().applyLocalBroker(status);
      if (status.state === 'running') void refreshRequests(client, LOCAL_CONNECTION_ID, store);
    }),
    client.api.on('pendingRequest', (pending) => store.getState().applyPending(pending)),
    client.onConnectionState((connection) => {
      store.getState().setConnection(connection);
      // Events missed while disconnected are not replayed: resynchronise on reconnect.
      if (connection === 'online') void refresh(client, store);
    }),
  ];
  state.setConnection(client.connectionState());
  void refresh(client, store);
  return () => stops.forEach((stop) => stop());
}

async function refresh(client: ConsoleClient, store: typeof useAppStore): Promise<void> {
  const [local, overview] = await Promise.all([
    client.api.getLocalBroker({}),
    client.api.getOverview({ connectionId: LOCAL_CONNECTION_ID }),
  ]);
  if (local.ok) store.getState().applyLocalBroker(local.value);
  if (overview.ok) store.getState().applyOverview(overview.value);
  const failed = !local.ok ? local.error : !overview.ok ? overview.error : null;
  if (failed) store.getState().setActionError(failed);
  await refreshRequests(client, LOCAL_CONNECTION_ID, store);
}

/** Restarts the local broker, recording progress and any error in the session slice. */
export async function restartLocalBroker(
  client: ConsoleClient,
  store = useAppStore,
): Promise<void> {
  const { setRestarting, setActionError, applyLocalBroker } = store.getState();
  setRestarting(true);
  setActionError(null);
  try {
    const result = await client.api.restartLocalBroker({});
    if (result.ok) applyLocalBroker(result.value);
    else setActionError(result.error);
  } finally {
    setRestarting(false);
  }
}
