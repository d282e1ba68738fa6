/**
 * A broker's readiness (issue 23): `GET /ready` (alias `/readyz`, docs/http-api.md
 * "GET /ready") and `Broker.readiness()`. Where `/health` says the process serves (liveness),
 * readiness says whether a load balancer or Kubernetes should send it new clients now.
 *
 * Ready — status 200 — only when every check passes and no drain has begun:
 * - `listeners`: the socket.io port is bound (own server listening, or the host application's
 *   server when attached), and the MQTT listener too when `mqtt.enabled`;
 * - `store`: the store has opened and accepts new durable copies — the SQLite store's
 *   free-space reserve has not tripped (`low free space`, `store full`);
 * - `redis` (clustered): this node's Redis links are up;
 * - `catch_up` (clustered): the relay has read and stored the inbox backlog it found at start.
 * Otherwise 503 with the same body. Values are `ReadinessReason`s (shared/http-api.ts): short,
 * fixed strings, never a Redis URL, an error text or a file path.
 *
 * Cheap per probe: cached readings only (the free-space reading is at most 1 s old).
 */
import {
  ReadinessReason as R,
  type Readiness,
  type ReadinessReasonValue,
  type StorageStatus,
} from '../../shared/http-api';
import type { ClusterReadiness } from '../cluster/create-cluster';

/** Where a broker is in its life: serving, draining (a graceful stop began), or closed. */
export type BrokerPhase = 'running' | 'draining' | 'closed';

export interface ReadinessDeps {
  /** Whether the socket.io listener is bound (own server, or the attached one, listening). */
  listening: () => boolean;
  /** null when `mqtt.enabled` is off, else whether the MQTT listener is bound. */
  mqtt: () => boolean | null;
  /** Settles when the store has opened (rejects: it could not be opened). */
  storeOpened: Promise<unknown>;
  /** The store's free-space state (SQLite), or undefined for stores without one. */
  storage: () => StorageStatus | undefined;
  /** The cluster's facts, or null when not clustered. */
  cluster: () => ClusterReadiness | null;
  phase: () => BrokerPhase;
}

/** Builds the readiness reader; call the result at each probe. */
export function brokerReadiness(deps: ReadinessDeps): () => Readiness {
  let store: 'opening' | 'open' | 'failed' = 'opening';
  deps.storeOpened.then(
    () => (store = 'open'),
    () => (store = 'failed'),
  );
  const listeners = (): ReadinessReasonValue => {
    if (!deps.listening()) return R.NOT_LISTENING;
    return deps.mqtt() === false ? R.MQTT_NOT_LISTENING : R.OK;
  };
  const storeCheck = (): ReadinessReasonValue => {
    if (deps.phase() === 'closed') return R.STORE_CLOSED;
    if (store === 'opening') return R.STORE_OPENING;
    if (store === 'failed') return R.STORE_UNAVAILABLE;
    const status = deps.storage();
    if (!status?.refusing_writes) return R.OK;
    return status.reason === 'store_full' ? R.STORE_FULL : R.LOW_FREE_SPACE;
  };
  return () => {
    const cluster = deps.cluster();
    const checks = {
      listeners: listeners(),
      store: storeCheck(),
      redis: !cluster ? R.NOT_CLUSTERED : cluster.redisUp ? R.OK : R.REDIS_UNREACHABLE,
      catch_up: !cluster
        ? R.NOT_CLUSTERED
        : !cluster.started
          ? R.CLUSTER_STARTING
          : cluster.caughtUp
            ? R.OK
            : R.CATCHING_UP,
    } satisfies Readiness['checks'];
    const draining = deps.phase() !== 'running';
    const passing = Object.values(checks).every((v) => v === R.OK || v === R.NOT_CLUSTERED);
    return { ready: passing && !draining, draining, checks };
  };
}
