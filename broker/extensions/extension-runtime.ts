/**
 * `extensionRuntime(parts)`: the tyo-mq 1.1 extensions' per-identity state (E2EE keys and
 * pins, restored before clients are served and shared over Redis when clustered, §2.4), its
 * sealed-sender material (§4.1) and the push runtime that wakes offline consumers (§6). Called
 * once by `createBroker`; the caller closes `push` on stop.
 */
import type { Logger } from '../logging/logger';
import type { MessageStore } from '../storage/message-store';
import { ExtensionState } from './extension-state';
import { keyDirectorySync } from './key-directory-sync';
import { prekeyRedisDirectory } from './prekey-redis-directory';
import { pushRedisRegistry } from './push/push-redis-registry';
import {
  createPushRuntime,
  wakeOnOfflineStore,
  type PushWiring,
  type PushOptions,
} from './push/push-wiring';
import type { SealedConfig } from './sealed/sealed-config';
import { sealedUakRedis } from './sealed/sealed-uak-redis';
import type { PushService } from './push/push-runtime';

export interface ExtensionRuntimeParts {
  store: MessageStore;
  cluster: Parameters<typeof keyDirectorySync>[0];
  sealed: SealedConfig | null;
  env: PushWiring['env'];
  push: PushOptions | undefined;
  metrics: PushWiring['metrics'];
  logger: Logger;
}

/** The extension state with its sync, sealed config and push runtime attached. */
export function extensionRuntime(parts: ExtensionRuntimeParts): {
  extensions: ExtensionState;
  push: PushService;
  offlineStored: ReturnType<typeof wakeOnOfflineStore>;
} {
  const { store, cluster, logger } = parts;
  const extensions = new ExtensionState(store, logger);
  extensions.sync = keyDirectorySync(cluster, extensions, logger);
  extensions.prekeyCluster = prekeyRedisDirectory(cluster, logger);
  extensions.pushCluster = pushRedisRegistry(cluster, logger);
  extensions.sealed = parts.sealed;
  extensions.uakCluster = parts.sealed ? sealedUakRedis(cluster, logger) : null;
  const push = createPushRuntime({
    env: parts.env,
    options: parts.push,
    registry: extensions.push,
    directory: extensions.pushDirectory,
    metrics: parts.metrics,
    logger,
    // §6.10's per-node warning only applies without the shared registry (Note 6-G).
    clustered: cluster !== null && extensions.pushCluster === null,
  });
  extensions.pushRuntime = push;
  return { extensions, push, offlineStored: wakeOnOfflineStore(push) };
}
