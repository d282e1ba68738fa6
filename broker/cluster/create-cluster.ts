/**
 * A broker's cluster membership (`spec/protocol-core.md` §17, `spec/protocol-admin.md` §15;
 * docs/cluster.md): the Redis links, the message relay, the node heartbeat and metrics, built
 * from the `cluster` settings block. With `cluster.enabled` false nothing connects and
 * `nodeId` is the top-level `node_id` setting (or null).
 */
import type { Registry } from 'prom-client';
import type { ClusterStatus } from '../../shared/http-api';
import type { Settings } from '../config/settings-schema';
import type { Logger } from '../logging/logger';
import type { RealmDirectory } from '../routing/realm-directory';
import type { Router } from '../routing/router';
import type { SubscriptionPersistence } from '../routing/subscription-persistence';
import type { MessageStore } from '../storage/message-store';
import { DEFAULT_STORE_TTL_SECONDS } from '../storage/message-store';
import { ClusterMetrics } from './cluster-metrics';
import { ConsumerOwnership } from './consumer-ownership';
import { DEFAULT_REDIS_URL } from '../storage/redis-keys';
import { redisTarget, type RedisTarget } from '../storage/redis-target';
import type { ClusterSettings } from './cluster-schema';
import { MessageRelay } from './message-relay';
import { clusterNodeId } from './node-identity';
import { NodeRegistry } from './node-registry';
import { RedisLinks } from './redis-links';
import { InterestSync } from './interest-sync';
import { QueueHandover } from './queue-handover';
import { StreamRelay } from './stream-relay';

/** What `GET /ready` asks a clustered node (broker/http/broker-readiness.ts). */
export interface ClusterReadiness {
  /** Both Redis links are up. */
  redisUp: boolean;
  /** `start()` has finished (first connection attempt, relay started). */
  started: boolean;
  /** The relay has read what its inbox held at start (pub/sub relay: true once started). */
  caughtUp: boolean;
}

export interface Cluster {
  /** This node's id: `cluster.node_id`, else the top-level `node_id`, else the one kept in the data directory (`node-identity.ts`). */
  readonly nodeId: string | null;
  /** The Redis links when clustering is on (shared with the admin-state sync). */
  readonly links: RedisLinks | null;
  readonly settings: ClusterSettings | null;
  /** First connection attempt (resolves, never rejects; a node starts without Redis). */
  start(): Promise<void>;
  /** `cluster` of `GET /api/stats`, or undefined when not clustered. */
  status(): ClusterStatus | undefined;
  /** The readiness facts of a clustered node, or null when not clustered. */
  readiness(): ClusterReadiness | null;
  close(): Promise<void>;
}

export interface ClusterDeps {
  router: Router;
  /** The realms' registries, whose subscriptions make this node's interest (streams relay). */
  realms: RealmDirectory;
  registry: Registry;
  logger: Logger;
  version: string;
  /** Where an unconfigured node id is kept across restarts (`node-identity.ts`). */
  dataDir?: string;
  /**
   * Durable subscriptions: a cluster node makes them its own (`joinCluster`, before they are
   * restored) and hands consumers over (`consumer-ownership.ts`).
   */
  persistence: SubscriptionPersistence;
  /** Whether the message store is the shared Redis store (`realm-renames.ts` `sharedStoreName`). */
  sharedStore: () => boolean;
  /** This node's message store: the copies of a taken-over consumer move from it. */
  store?: MessageStore;
  /** Replays a queue to its consumer if it is live here (handed-over copies). */
  replay?: (realm: string, key: string, consumer: string) => void;
}

/**
 * The Redis the cluster uses: its own `sentinel` / `redis_url`, else the Redis store's
 * (`storage_options.sentinel` / `url`), else `redis://127.0.0.1:6379`.
 */
export function clusterRedisTarget(settings: Settings, cluster: ClusterSettings): RedisTarget {
  const own = cluster.sentinel !== undefined || cluster.redis_url !== undefined;
  const source = own
    ? { url: cluster.redis_url, sentinel: cluster.sentinel }
    : settings.storage_options;
  return redisTarget(source.url, source.sentinel, DEFAULT_REDIS_URL);
}

export function createCluster(settings: Settings, deps: ClusterDeps): Cluster {
  const config = settings.cluster;
  if (!config?.enabled) {
    return {
      nodeId: settings.node_id ?? null,
      links: null,
      settings: null,
      start: () => Promise.resolve(),
      status: () => undefined,
      readiness: () => null,
      close: () => Promise.resolve(),
    };
  }
  const nodeId = clusterNodeId(config.node_id ?? settings.node_id, deps.dataDir);
  const logger = deps.logger.child({ node: nodeId });
  const links = new RedisLinks(
    { target: clusterRedisTarget(settings, config), connectTimeoutMs: config.connect_timeout_ms },
    logger,
  );
  const registry = new NodeRegistry(
    nodeId,
    config.prefix,
    deps.version,
    config.heartbeat_ms,
    links,
    logger,
  );
  const metrics = new ClusterMetrics(deps.registry, {
    up: () => links.up,
    nodes: () => registry.nodes().length,
  });
  // One owner per durable consumer (docs/cluster.md "A consumer that moves between nodes").
  const ownership = new ConsumerOwnership({
    nodeId,
    prefix: config.prefix,
    links,
    realms: deps.realms,
    persistence: deps.persistence,
    sharedStore: deps.sharedStore,
    handover: (realm, key, consumer, consumerId, owner) =>
      // `relay` is built below; announcements are heard only once the cluster runs.
      void relay.handover?.send(realm, key, consumer, consumerId, owner),
    logger,
  });
  deps.persistence.joinCluster(nodeId, (realm, consumer) => ownership.claim(realm, consumer));
  // Listening before the first connection: `listen` subscribes once the link is ready.
  ownership.start();
  const defaultTtl =
    settings.storage_options.default_ttl ?? settings.default_ttl ?? DEFAULT_STORE_TTL_SECONDS;
  const relay =
    config.relay === 'pubsub'
      ? pubsubRelay(config, nodeId, defaultTtl, links, deps, metrics, logger)
      : streamsRelay(config, nodeId, defaultTtl, links, deps, metrics, logger);
  let started = false;
  return {
    nodeId,
    links,
    settings: config,
    async start() {
      await links.connect();
      registry.start();
      // Durable subscriptions are restored by now: give up those another node took over.
      await ownership.reconcile();
      relay.start();
      started = true;
      logger.info(
        { node_id: nodeId, prefix: config.prefix, redis: links.url },
        'cluster node started',
      );
    },
    readiness: () => ({ redisUp: links.up, started, caughtUp: started && relay.caughtUp() }),
    status: () => ({
      node_id: nodeId,
      redis: links.up ? 'up' : 'down',
      ...(links.lastError ? { redis_error: links.lastError } : {}),
      redis_url: links.url,
      prefix: config.prefix,
      nodes: registry.nodes(),
      relay: relay.status(),
    }),
    async close() {
      ownership.close();
      await relay.close();
      await registry.close();
      await links.close();
    },
  };
}

/** The relay of either mode, as the cluster drives it. */
interface RelayParts {
  /** After Redis is first asked and durable subscriptions are restored. */
  start(): void;
  status(): NonNullable<ClusterStatus['relay']>;
  /** Whether the relay has caught up on what reached this node while it was away. */
  caughtUp(): boolean;
  close(): Promise<void>;
  /** Moves a taken-over consumer's stored copies (streams relay with a store only). */
  handover: QueueHandover | null;
}

/** `relay: "pubsub"`: the reference's channel; every node gets every message. */
function pubsubRelay(
  config: ClusterSettings,
  nodeId: string,
  defaultTtl: number,
  links: RedisLinks,
  deps: ClusterDeps,
  metrics: ClusterMetrics,
  logger: Logger,
): RelayParts {
  const relay = new MessageRelay(
    nodeId,
    config.prefix,
    defaultTtl,
    links,
    deps.router,
    metrics,
    logger,
    config.inline_max_bytes,
  );
  relay.start();
  return {
    start: () => undefined,
    status: () => ({ mode: 'pubsub' }),
    // Pub/sub keeps nothing for an absent node: there is nothing to catch up on.
    caughtUp: () => true,
    close: () => relay.close(),
    handover: null,
  };
}

/**
 * `relay: "streams"` (the default): the inboxes, with interest routing (docs/cluster.md
 * "Interest routing") and the hand-over of stored copies.
 */
function streamsRelay(
  config: ClusterSettings,
  nodeId: string,
  defaultTtl: number,
  links: RedisLinks,
  deps: ClusterDeps,
  metrics: ClusterMetrics,
  logger: Logger,
): RelayParts {
  const relay = new StreamRelay(
    {
      nodeId,
      prefix: config.prefix,
      defaultTtl,
      inlineMaxBytes: config.inline_max_bytes,
      retentionMs: config.retention_ms,
      retentionBytes: config.retention_bytes,
      memberExpiryMs: config.member_expiry_ms,
      cycleMs: Math.min(config.heartbeat_ms, 5_000),
    },
    links,
    deps.router,
    metrics,
    logger,
    links.blockingLink('switchboard-inbox'),
  );
  const interest = new InterestSync({
    nodeId,
    prefix: config.prefix,
    links,
    realms: deps.realms,
    router: deps.router,
    logger,
    checkMs: config.heartbeat_ms,
  });
  relay.setInterest(interest);
  const handover =
    deps.store && deps.replay
      ? new QueueHandover({
          nodeId,
          prefix: config.prefix,
          links,
          store: deps.store,
          logger,
          replay: deps.replay,
        })
      : null;
  if (handover) relay.setHandover(handover);
  relay.onMemberDropped((id) => void interest.forget(id));
  relay.attach();
  metrics.streams(() => relay.status());
  return {
    start() {
      interest.start();
      relay.start();
    },
    status: () => relay.status(),
    caughtUp: () => relay.caughtUp,
    async close() {
      await relay.close();
      await interest.close();
    },
    handover,
  };
}
