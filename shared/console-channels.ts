/**
 * The ConsoleApi's method and event names and its transports' channels, without zod, so that
 * the sandboxed Electron preload (bundled into one file) stays small. `console-api.ts` checks
 * at compile time that these lists match its schemas.
 */

/** Request/response methods of the ConsoleApi (schemas in `console-api.ts`). */
export const CONSOLE_METHOD_NAMES = [
  'getOverview',
  'getLocalBroker',
  'restartLocalBroker',
  'nextRequest',
  'decideRequest',
  'listRealms',
  // Connections (shared/console-api-connections.ts)
  'listConnections',
  'addConnection',
  'editConnection',
  'removeConnection',
  'testConnection',
  'testConnectionDraft',
  'exportConnections',
  'importConnections',
  'getSecretStoreInfo',
  // Realms, tokens, request queue (shared/console-api-realms.ts) and activity (-activity.ts).
  'createRealm',
  'setRealmLifetime',
  'setRealmFlag',
  'clearRealmSecret',
  'removeRealm',
  'endRealmSessions',
  'revealGeneratedSecret',
  'listTokens',
  'revokeToken',
  'revokeManagementToken',
  'setValidator',
  'removeValidator',
  'listPendingRequests',
  'listActivity',
  // Operations views (shared/console-api-operations.ts).
  'getMetricsHistory',
  'listDeadLetters',
  'replayDeadLetters',
  'discardDeadLetters',
  'listClients',
  'getClientDetail',
  'closeClient',
  // Queues view (shared/console-api-queues.ts).
  'listQueues',
  'peekQueue',
  'purgeQueue',
  'moveQueue',
  'releaseInFlight',
  // Retained view (shared/console-api-retained.ts).
  'listRetained',
  'getRetained',
  'deleteRetained',
  // Command console (shared/console-api-commands.ts).
  'commandPreview',
  'commandRun',
  'commandHistory',
  // Definitions export/import (shared/console-api-definitions.ts).
  'exportDefinitions',
  'previewDefinitions',
  'applyDefinitions',
  // E2EE identities view (shared/console-api-identities.ts).
  'listIdentities',
  'revokeIdentityKey',
  // Resources view (shared/console-api-resources.ts).
  'getResources',
  // Live tap and test publisher (console-api-tap.ts).
  'tapStart',
  'tapStop',
  'publishMessage',
  'publishMqtt',
  // Topic tree (console-api-topics.ts).
  'topicTreeStart',
  'topicTreeStop',
  'topicTreeNode',
  // Local broker view and demo mode (console-api-local.ts).
  'startLocalBroker',
  'stopLocalBroker',
  'getLocalBrokerLogs',
  'readLocalSettings',
  'validateLocalSettings',
  'saveLocalSettings',
  'startDemo',
  'stopDemo',
  'getDemo',
  // Confirmation tokens of dangerous calls, minted by the transport (console-api-confirm.ts).
  'confirmCall',
] as const;

/** Server-pushed event streams of the ConsoleApi (schemas in `console-api.ts`). */
export const CONSOLE_EVENT_NAMES = [
  'overview',
  'localBroker',
  'pendingRequest',
  // Connections (shared/console-api-connections.ts)
  'connections',
  // Activity (shared/console-api-activity.ts).
  'activity',
  // Operations views (shared/console-api-operations.ts).
  'metricsPoint',
  // Live tap (console-api-tap.ts).
  'tapBatch',
  // Topic tree (console-api-topics.ts).
  'topicTreeUpdate',
  // Local broker view and demo mode (console-api-local.ts).
  'localBrokerLog',
  'demo',
] as const;

/** IPC channel names (Electron) and HTTP/WebSocket paths (web host) of the two transports. */
export const ConsoleChannel = {
  /** Electron: `ipcRenderer.invoke(INVOKE, method, input)`. */
  INVOKE: 'switchboard:invoke',
  /** Electron: main → renderer pushes `(event, payload)`. */
  EVENT: 'switchboard:event',
  /** Web host: `POST <CALL_PREFIX><method>` with the JSON input as body. */
  CALL_PREFIX: '/console-api/call/',
  /** Web host: WebSocket endpoint; the first message must be `{type: "hello", token}`. */
  EVENTS_PATH: '/console-api/events',
  /** Electron: renderer → main `send(WATCH, connectionIds)` (the window's watched connections). */
  WATCH: 'switchboard:watch',
} as const;

/** Name of one ConsoleApi event stream. */
export type ConsoleEventStreamName = (typeof CONSOLE_EVENT_NAMES)[number];
