/**
 * The ConsoleService implementation (`shared/console-api.ts`) on top of the ConnectionManager and
 * the local BrokerSupervisor. Transports (Electron IPC, web host) validate input and call it.
 */
import type { ConsoleService } from '../../shared/console-api';
import type { BrokerSupervisor } from './broker-supervisor';
import { ConsoleEventHub } from './console-event-hub';
import type { ConnectionManager } from './connection-manager';

/** A ConsoleService plus `close()`, which detaches it from its sources. */
export type ClosableConsoleService = ConsoleService & { close(): void };

export interface ConsoleServiceDeps {
  connections: ConnectionManager;
  supervisor: BrokerSupervisor;
}

/**
 * Builds the service. Events: `overview` for every sample of every connection (≥ 1/s each),
 * `localBroker` on every supervisor status change.
 * Errors: `getOverview` → `SWB_ERR_NOT_FOUND`; `restartLocalBroker` → `SWB_ERR_PORT_IN_USE`,
 * `SWB_ERR_VALIDATION` or `SWB_ERR_BROKER_NOT_RUNNING` when the broker cannot come back.
 */
export function createConsoleService({
  connections,
  supervisor,
}: ConsoleServiceDeps): ClosableConsoleService {
  const hub = new ConsoleEventHub();
  const detach = [
    connections.onOverview((overview) => hub.emit('overview', overview)),
    supervisor.onStatus((status) => hub.emit('localBroker', status)),
  ];
  return {
    getOverview: ({ connectionId }) => connections.overview(connectionId),
    getLocalBroker: async () => supervisor.status(),
    restartLocalBroker: () => supervisor.restart(),
    on: (event, listener) => hub.on(event, listener),
    close: () => {
      detach.forEach((dispose) => dispose());
      hub.clear();
    },
  };
}
