/**
 * HTTP publish and SSE subscribe (`spec/protocol-extensions.md` §5; docs/http-publish.md):
 * the request handler for `/pub`, `/sub` and `/sub-ticket`, placed before the admin HTTP API
 * (§5.1 handler order), and the SSE hub, which the composition root adds as a router tap.
 *
 * `handle(req, res)` returns true when it claimed the request. Claimed requests pass the
 * broker's Host/Origin request policy first (the same as sockets; a refused browser origin
 * gets the policy's 403, and no CORS header is ever sent, §5.1); with the flag off they answer
 * `404 {ok:false, code:404, message:"not found"}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { LimitsConfig } from '../limits/limits-config';
import type { LimitMetrics } from '../limits/limit-metrics';
import { HttpBuckets } from './http-buckets';
import {
  HTTP_PUBLISH_DEFAULTS,
  httpPublishEnabled,
  type HttpPublishSettings,
} from './http-publish-schema';
import { fail, pathSegments } from './http-reply';
import { handlePublish, type PublishDeps } from './publish-route';
import { SseHub } from './sse-hub';
import { SseTickets } from './sse-tickets';
import { watchStreamRevocations } from './stream-revocation';
import { handleSubscribe, handleTicket } from './subscribe-route';

export interface HttpPublishDeps extends Omit<PublishDeps, 'buckets'> {
  /** The live `http_publish` block (undefined when absent). */
  settings: () => HttpPublishSettings | undefined;
  env: NodeJS.ProcessEnv;
  /** The store default TTL in seconds (core §9.3). */
  defaultTtlS: () => number;
  limits: LimitsConfig;
  limitMetrics: LimitMetrics;
  registry: Registry;
  /** The broker's Host/Origin policy; answers a refusal itself and returns false. */
  admit: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Live settings changes: the streams close when the flag goes off (Note 5-G). */
  onSettingsChange: (listener: () => void) => void;
}

export interface HttpPublish {
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  readonly hub: SseHub;
  /** Whether the feature is on now (§5.1, per request). */
  enabled(): boolean;
  close(): void;
}

const ROUTES = ['pub', 'sub', 'sub-ticket'] as const;
type Route = (typeof ROUTES)[number];

/** The route a pathname claims (§5.1: `/pub` and `/pub/…`, …), or null. */
function claimed(url: string | undefined): Route | null {
  let pathname: string;
  try {
    pathname = new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return null;
  }
  for (const r of ROUTES) if (pathname === `/${r}` || pathname.startsWith(`/${r}/`)) return r;
  return null;
}

export function createHttpPublish(deps: HttpPublishDeps): HttpPublish {
  const block = () => deps.settings() ?? HTTP_PUBLISH_DEFAULTS;
  const enabled = () => httpPublishEnabled(deps.settings(), deps.env);
  const buckets = new HttpBuckets(deps.limits, deps.limitMetrics);
  const tickets = new SseTickets();
  const hub = new SseHub({
    settings: block,
    enabled,
    defaultTtlS: deps.defaultTtlS,
    registry: deps.registry,
    logger: deps.logger,
    interestChanged: () => deps.router.tapInterestChanged(),
  });
  const removeTap = deps.router.addTap(hub.routed, hub.hasRealm, hub.realms);
  const stopRevocations = watchStreamRevocations(deps.auth, hub, deps.logger);
  deps.onSettingsChange(() => {
    if (!enabled() && hub.size > 0) hub.closeAll('HTTP publish turned off');
  });
  const sub = { ...deps, hub, tickets, buckets, settings: block };
  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const route = claimed(req.url);
    const path = route ? pathSegments(req.url) : null;
    if (!route || !path) return false;
    if (!deps.admit(req, res)) return true;
    if (!enabled()) {
      fail(res, 404, 'not found');
      return true;
    }
    const work =
      route === 'pub'
        ? handlePublish({ ...deps, buckets }, req, res, path)
        : route === 'sub'
          ? handleSubscribe(sub, req, res, path)
          : handleTicket(sub, req, res, path);
    work.catch((err: unknown) => {
      deps.logger.error({ err, route }, 'HTTP publish/subscribe request failed');
      if (!res.headersSent) fail(res, 500, 'internal error');
      else res.destroy();
    });
    return true;
  };
  return {
    handle,
    hub,
    enabled,
    close() {
      removeTap();
      stopRevocations();
      hub.closeAll('broker closing');
      tickets.close();
      hub.history.clear();
    },
  };
}
