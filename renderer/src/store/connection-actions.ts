/**
 * The Connections view's actions (list, add, edit, remove, test, export, import) and switching
 * the selected connection. Every outcome lands in the connections slice, errors included; no
 * secret is ever stored in the renderer (an entered secret goes straight to the ConsoleApi).
 */
import type { MethodInput } from '../../../shared/console-api';
import type { ConnectionExport } from '../../../shared/console-api-connections';
import type { ConsoleClient } from '../api/console-client';
import { useAppStore } from './app-store';

/** Reloads the connection list and the secret store notice. */
export async function refreshConnections(
  client: ConsoleClient,
  store = useAppStore,
): Promise<void> {
  const [list, secrets] = await Promise.all([
    client.api.listConnections({}),
    client.api.getSecretStoreInfo({}),
  ]);
  if (list.ok) store.getState().applyConnections(list.value);
  if (secrets.ok) store.getState().setSecretStore(secrets.value);
  const failed = !list.ok ? list.error : !secrets.ok ? secrets.error : null;
  store.getState().setConnectionsError(failed);
}

/** Adds (no `connectionId`) or edits a profile; resolves true on success. */
export async function saveConnection(
  client: ConsoleClient,
  input: MethodInput<'addConnection'> | MethodInput<'editConnection'>,
  store = useAppStore,
): Promise<boolean> {
  store.getState().setConnectionsError(null);
  const result =
    'connectionId' in input
      ? await client.api.editConnection(input)
      : await client.api.addConnection(input);
  if (!result.ok) {
    store.getState().setConnectionsError(result.error);
    return false;
  }
  await refreshConnections(client, store);
  return true;
}

export async function removeConnection(
  client: ConsoleClient,
  connectionId: string,
  store = useAppStore,
): Promise<void> {
  store.getState().setConnectionsError(null);
  const result = await client.api.removeConnection({ connectionId });
  if (!result.ok) store.getState().setConnectionsError(result.error);
  await refreshConnections(client, store);
}

/** Runs the layered test of `connectionId`; the report lands in `connectionTests`. */
export async function testConnection(
  client: ConsoleClient,
  connectionId: string,
  store = useAppStore,
): Promise<void> {
  const state = store.getState();
  state.setTestingConnection(connectionId, true);
  try {
    const result = await client.api.testConnection({ connectionId });
    if (result.ok) store.getState().applyConnectionTest(result.value);
    else store.getState().setConnectionsError(result.error);
  } finally {
    store.getState().setTestingConnection(connectionId, false);
  }
}

/** The export document (secret-free) as pretty JSON, or null (error in the slice). */
export async function exportConnections(
  client: ConsoleClient,
  store = useAppStore,
): Promise<string | null> {
  const result = await client.api.exportConnections({});
  if (!result.ok) {
    store.getState().setConnectionsError(result.error);
    return null;
  }
  return JSON.stringify(result.value, null, 2);
}

/** Imports an export document pasted as JSON text; resolves with the number imported. */
export async function importConnections(
  client: ConsoleClient,
  text: string,
  store = useAppStore,
): Promise<number> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    store.getState().setConnectionsError({
      code: 'SWB_ERR_VALIDATION',
      message: 'The pasted text is not JSON: paste a file made by Export',
    });
    return 0;
  }
  const result = await client.api.importConnections({ document: document as ConnectionExport });
  if (!result.ok) {
    store.getState().setConnectionsError(result.error);
    return 0;
  }
  store.getState().setConnectionsError(null);
  await refreshConnections(client, store);
  return result.value.length;
}
