/**
 * `observeStore(metrics, store, sources)`: hangs a message store's metrics and the resource
 * monitor (issue 27) on the broker's registry: commit latency, write failures, the Redis
 * fallback, DLQ depths and storage status, then the process metrics. Called once by
 * `createBroker`; every hook the store lacks (a memory store has no DLQ depths) is skipped.
 */
import type { MessageStore } from '../storage/message-store';
import type { BrokerMetrics } from './broker-metrics';
import { processMetrics, ResourceMonitor, type ResourceSources } from './resource-monitor';
import { StoreMetrics } from './store-metrics';

export interface StoreObservers {
  /** The `resources` command's and /api/metrics' source; closed with the broker. */
  resources: ResourceMonitor;
  /** Whether a Redis store fell back to memory at start-up (Note 7-A); false otherwise. */
  fellBack(): boolean;
}

/** Wires the store's observers (see the module comment). */
export function observeStore(
  metrics: BrokerMetrics,
  store: MessageStore,
  sources: Pick<ResourceSources, 'storeFiles' | 'queues' | 'thresholds' | 'logger'>,
): StoreObservers {
  store.observeCommits?.((ms) => metrics.storageCommitted(ms));
  const storeMetrics = new StoreMetrics(metrics.registry);
  const fellBack = () => store.fallbackStatus?.().fell_back ?? false;
  storeMetrics.watchFallback(fellBack);
  store.observeWriteFailures?.((op, reason) => storeMetrics.writeFailed(op, reason));
  const dlqDepths = store.dlqDepths?.bind(store);
  if (dlqDepths) metrics.watchDlq(dlqDepths);
  const storageStatus = store.storageStatus?.bind(store);
  if (storageStatus) metrics.watchStorage(storageStatus);
  const resources = new ResourceMonitor(metrics.registry, {
    ...sources,
    storeBackend: store.backend,
    storage: storageStatus,
    fallback: store.fallbackStatus?.bind(store),
    dlqDepths,
    deadLettered: () => metrics.deadLetteredTotal,
  });
  metrics.append(processMetrics());
  return { resources, fellBack };
}
