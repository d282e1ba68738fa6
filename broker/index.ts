/**
 * The broker's public API (ARCHITECTURE §2: the only broker module the console may import):
 * `createBroker` (its composition root is create-broker.ts), the embedding API's types, and the
 * settings, signing and socket helpers the console and tests share.
 */
export { createBroker } from './create-broker';
export type { Settings, SettingsInput } from './config/settings-schema';
export { DEFAULT_MAX_HTTP_BUFFER_SIZE } from './config/settings-schema';
export { loadSettingsFile, parseSettings, readSettingsFile } from './config/load-settings';
export { BROKER_VERSION } from './version';
// The console's settings editor validates with the broker's own schemas and writes like it.
export { SettingsSchema, UNSUPPORTED_KEY_MESSAGE, unsupportedKeys } from './config/settings-schema';
export { normalizeSettingsAliases } from './config/normalize-aliases';
export { parseAuthConfig } from './auth/auth-schema';
export { RESTART_KEYS } from './config/live-settings';
export { writeFileAtomic } from './config/atomic-write';
export type { DlqEntry, MessageStore, StoredEntry } from './storage/message-store';

export {
  PING_INTERVAL_MS,
  PING_TIMEOUT_MS,
  STOCK_SOCKET_SETTINGS,
  socketIoOptions,
} from './transport/socket-options';

export { AuthState } from './auth/auth-state';
/** Signs manager proofs (§6.2) for our clients: the console's manager client, tests. */
export { signEnvelope } from './auth/proof';
export type { NonceStore } from './auth/nonce-store';

export type {
  Broker,
  BrokerOptions,
  BrokerStatus,
  DrainOptions,
  DrainReport,
} from './broker-types';
export * from './policy/embedding-types';
