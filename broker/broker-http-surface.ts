/**
 * The broker's HTTP surface on its port (docs/http-api.md, docs/http-publish.md): HTTP publish
 * and SSE (`/pub`, `/sub-ticket`, `/sub`; extensions §5.1) answered first, then the admin HTTP
 * API (`/health`, `/ready`, `/api/*`), both behind the Host/Origin request policy; and the
 * readiness that `/ready`, Kubernetes probes and a graceful stop read. Built once by
 * `createBroker`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Health, Stats } from '../shared/http-api';
import type { AuthState } from './auth/auth-state';
import type { TokenValidator } from './auth/token-validator';
import type { BrokerListeners } from './broker-listeners';
import type { Cluster } from './cluster/create-cluster';
import type { LiveSettings } from './config/live-settings';
import type { QueueLedger } from './delivery/queue-ledger';
import { createHttpPublish, type HttpPublish } from './http-publish/http-publish';
import { brokerClients } from './http/broker-clients';
import { createBrokerHttp } from './http/broker-http';
import { brokerReadiness } from './http/broker-readiness';
import type { ClientHistory } from './clients/client-history';
import type { RequestPolicy } from './http/request-policy';
import type { LimitMetrics } from './limits/limit-metrics';
import type { LimitsService } from './limits/limits-service';
import type { Logger } from './logging/logger';
import type { BrokerMetrics } from './metrics/broker-metrics';
import type { MqttListener } from './mqtt/mqtt-listener';
import type { Embedding } from './policy/embedding';
import type { RealmDirectory } from './routing/realm-directory';
import type { Router } from './routing/router';
import { storeOpened } from './storage/create-store';
import { DEFAULT_STORE_TTL_SECONDS, type MessageStore } from './storage/message-store';
import type { GracefulDrain } from './transport/graceful-drain';

export interface HttpSurfaceParts {
  live: LiveSettings;
  auth: AuthState;
  tokens: TokenValidator;
  router: Router;
  embed: Embedding;
  metrics: BrokerMetrics;
  logger: Logger;
  limitMetrics: LimitMetrics;
  env: NodeJS.ProcessEnv;
  rateLimits: LimitsService;
  policy: RequestPolicy;
  health: () => Health;
  getStats: () => Stats;
  realms: RealmDirectory;
  ledger: QueueLedger;
  mqtt: MqttListener;
  store: MessageStore;
  cluster: Cluster;
  drain: GracefulDrain;
  /** The client records (issue 27): `GET /api/clients` reads each connection's counters. */
  clientHistory: Pick<ClientHistory, 'find'>;
  /** Built after the surface (they serve it): read only once requests arrive. */
  listeners: () => BrokerListeners;
}

export interface HttpSurface {
  readiness: ReturnType<typeof brokerReadiness>;
  httpPublish: HttpPublish;
  /** The request handler of both; false when neither took the request. */
  httpApi: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export function brokerHttpSurface(p: HttpSurfaceParts): HttpSurface {
  const { live, store, policy, rateLimits, metrics, logger, auth } = p;
  const readiness = brokerReadiness({
    listening: () => p.listeners().listening(),
    mqtt: () => p.listeners().mqttBound(),
    storeOpened: storeOpened(store),
    storage: () => store.storageStatus?.(),
    cluster: () => p.cluster.readiness(),
    phase: () => p.drain.phase,
  });
  const httpPublish = createHttpPublish({
    ...{ auth, tokens: p.tokens, router: p.router, embed: p.embed, metrics, logger },
    ...{ limitMetrics: p.limitMetrics, env: p.env },
    settings: () => live.current.http_publish,
    defaultTtlS: () => live.current.default_ttl ?? DEFAULT_STORE_TTL_SECONDS,
    limits: rateLimits.config,
    registry: metrics.registry,
    requestIp: (req) => rateLimits.requestIp(req),
    admit: (req, res) => policy.admitHttp(req, res),
    onSettingsChange: (listener) => void live.onChange(listener),
  });
  const adminHttp = createBrokerHttp({
    settings: () => live.current,
    health: p.health,
    ready: readiness,
    stats: p.getStats,
    clients: () =>
      brokerClients(p.realms, p.ledger, p.mqtt.clientList(), httpPublish.hub.list(), (realm, id) =>
        p.clientHistory.find(realm, id),
      ),
    metrics: () => metrics.render(),
    listDlq: (realm) => store.listDlq(realm),
    admit: (req, res) => policy.admitHttp(req, res),
    auth,
    logger,
    rateLimits,
  });
  const httpApi = (req: IncomingMessage, res: ServerResponse): boolean =>
    httpPublish.handle(req, res) || adminHttp(req, res);
  return { readiness, httpPublish, httpApi };
}
