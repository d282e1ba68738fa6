/**
 * Feeds the store from a ConsoleClient: initial calls (`getLocalBroker`, the selected
 * connection's `getOverview`, the connection list), then the event streams and the transport's
 * connection state. The host is told which connection this page shows (`watchConnections`), so
 * only that connection's events arrive; switching connections re-subscribes and reloads.
 * Also the actions the views trigger (`runLocalBroker`).
 */
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';
import type { ConsoleClient } from '../api/console-client';
import { useAppStore } from './app-store';
import { refreshConnections } from './connection-actions';
import { refreshRequests } from './request-actions';

/** Starts feeding the store; returns a function that stops it. */
export function bindConsole(client: ConsoleClient, store = useAppStore): () => void {
  const state = store.getState();
  const selected = (): string => store.getState().selectedConnectionId;
  const watch = (): void => client.api.watchConnections?.([selected()]);
  const stops = [
    client.api.on('overview', (overview) => store.getState().applyOverview(overview)),
    client.api.on('localBroker', (status) => {
      store.getState().applyLocalBroker(status);
      if (status.state === 'running' && selected() === LOCAL_CONNECTION_ID) {
        void refreshRequests(client, LOCAL_CONNECTION_ID, store);
      }
    }),
    client.api.on('pendingRequest', (pending) => store.getState().applyPending(pending)),
    client.api.on('connections', (list) => store.getState().applyConnections(list)),
    client.onConnectionState((connection) => {
      store.getState().setConnection(connection);
      // Events missed while disconnected are not replayed: resynchronise on reconnect.
      if (connection === 'online') void refresh(client, store);
    }),
    store.subscribe((next, previous) => {
      if (next.selectedConnectionId === previous.selectedConnectionId) return;
      // The last connection's failures say nothing about this one.
      store.getState().setActionError(null);
      watch();
      void refresh(client, store);
    }),
  ];
  watch();
  state.setConnection(client.connectionState());
  void refresh(client, store);
  return () => stops.forEach((stop) => stop());
}

async function refresh(client: ConsoleClient, store: typeof useAppStore): Promise<void> {
  const connectionId = store.getState().selectedConnectionId;
  const [local, overview] = await Promise.all([
    client.api.getLocalBroker({}),
    client.api.getOverview({ connectionId }),
    refreshConnections(client, store),
  ]);
  // Only the console host itself refuses `getLocalBroker` as unauthorized: the page's console
  // token is wrong or from an earlier launch. Say so once, full page (app.tsx).
  if (!local.ok && local.error.code === 'SWB_ERR_UNAUTHORIZED') {
    store.getState().setConnection('unauthorized');
    return;
  }
  if (local.ok) store.getState().applyLocalBroker(local.value);
  if (overview.ok) store.getState().applyOverview(overview.value);
  const failed = !local.ok ? local.error : !overview.ok ? overview.error : null;
  if (failed) store.getState().setActionError(failed);
  await refreshRequests(client, connectionId, store);
}

/**
 * Starts, stops or restarts the local broker, recording progress (`restarting` while any of them
 * runs) and any error in the session slice.
 */
export async function runLocalBroker(
  client: ConsoleClient,
  action: 'start' | 'stop' | 'restart',
  store = useAppStore,
): Promise<void> {
  const { setRestarting, setActionError, applyLocalBroker } = store.getState();
  setRestarting(true);
  setActionError(null);
  try {
    const result =
      action === 'start'
        ? await client.api.startLocalBroker({})
        : action === 'stop'
          ? await client.api.stopLocalBroker({})
          : await client.api.restartLocalBroker({});
    if (result.ok) applyLocalBroker(result.value);
    else setActionError(result.error);
  } finally {
    setRestarting(false);
  }
}
