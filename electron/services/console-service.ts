/**
 * The ConsoleService implementation (`shared/console-api.ts`) on top of the ConnectionManager,
 * the local BrokerSupervisor and one ManagerClient per connection. Transports (Electron IPC, web
 * host) validate input and call it.
 */
import type { ConsoleService } from '../../shared/console-api';
import type { BrokerSupervisor } from './broker-supervisor';
import { ConsoleEventHub } from './console-event-hub';
import type { ConnectionManager } from './connection-manager';
import { ManagerPool, toAuthorizationRequest, toRealmList } from './manager-pool';
import { RequestWatcher } from './request-watcher';
import { createLocalBrokerConsoleService } from './local-broker-console-service';
import { createTapConsoleService } from './tap-console-service';

/** A ConsoleService plus `close()`, which detaches it from its sources. */
export type ClosableConsoleService = ConsoleService & { close(): void };

export interface ConsoleServiceDeps {
  connections: ConnectionManager;
  supervisor: BrokerSupervisor;
  /** Period of the pending-request check in ms. Default 1000. */
  requestPollMs?: number;
}

/**
 * Builds the service. Events: `overview` for every sample of every connection (≥ 1/s each),
 * `localBroker` on every supervisor status change, `pendingRequest` when a connection's oldest
 * pending authorization request changes.
 * Errors: `getOverview` → `SWB_ERR_NOT_FOUND`; `restartLocalBroker` → `SWB_ERR_PORT_IN_USE`,
 * `SWB_ERR_VALIDATION` or `SWB_ERR_BROKER_NOT_RUNNING` when the broker cannot come back; the
 * manager methods → see `ManagerPool.get` and `ManagerClient`.
 */
export function createConsoleService({
  connections,
  supervisor,
  requestPollMs,
}: ConsoleServiceDeps): ClosableConsoleService {
  const hub = new ConsoleEventHub();
  const pool = new ManagerPool(connections);
  const watcher = new RequestWatcher({
    pool,
    connectionIds: () => connections.ids(),
    onChange: (pending) => hub.emit('pendingRequest', pending),
    intervalMs: requestPollMs,
  });
  watcher.start();
  const tap = createTapConsoleService({ connections, pool, hub });
  const local = createLocalBrokerConsoleService({ supervisor, connections, pool, hub });
  const detach = [
    connections.onOverview((overview) => hub.emit('overview', overview)),
    supervisor.onStatus((status) => hub.emit('localBroker', status)),
  ];
  return {
    getOverview: ({ connectionId }) => connections.overview(connectionId),
    getLocalBroker: async () => supervisor.status(),
    restartLocalBroker: () => supervisor.restart(),
    nextRequest: async ({ connectionId, realm }) => {
      const raw = await pool.get(connectionId).next(realm);
      return { connectionId, request: raw ? toAuthorizationRequest(raw) : null };
    },
    decideRequest: async ({ connectionId, requestId, approved, role, reason }) => {
      const raw = await pool.get(connectionId).decide(requestId, approved, role, reason);
      // Show the next one at once rather than after the next poll.
      void watcher.round();
      return toAuthorizationRequest(raw);
    },
    listRealms: async ({ connectionId }) => {
      const reply = await pool.get(connectionId).command({ command: 'get' });
      return toRealmList(connectionId, reply.settings);
    },
    ...tap.methods,
    ...local.methods,
    on: (event, listener) => hub.on(event, listener),
    close: () => {
      tap.close();
      local.close();
      watcher.stop();
      pool.close();
      detach.forEach((dispose) => dispose());
      hub.clear();
    },
  };
}
