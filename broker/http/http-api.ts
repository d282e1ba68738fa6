/**
 * The opt-in HTTP API on the broker's port: `GET /health` (alias `/healthz`; liveness),
 * `GET /ready` (alias `/readyz`; readiness, 200 or 503, `broker-readiness.ts`; both under
 * `http_api.health` and public),
 * `GET /api/metrics` (Prometheus text via prom-client), `GET /api/stats` and
 * `GET /api/clients` (Switchboard: registrations per realm, `broker-clients.ts`) and
 * `GET /api/realms/{realm}/dlq` (`{realm, entries, next_cursor}`, oldest first, paged by
 * `limit`/`cursor` and capped at `http_api.max_response_bytes`, see `dlq-page.ts`; off with
 * `stats: false`).
 *
 * Source: `spec/protocol-admin.md` §10.1–§10.6. The admin bearer is checked in front of this
 * handler (`auth/http-bearer.ts`); with auth disabled no token is required — the Note in §10.8
 * asks to say so loudly (docs/http-api.md): bind the broker to a trusted interface or leave
 * `http_api.enabled` off. Unhandled requests on the broker's own server get a bare 403; on an
 * external server only our paths are answered.
 *
 * Every route answers even when its work fails: a rejected promise or an exception thrown while
 * building the answer ends in `500 {ok:false, code:500, message}` (or a dropped connection when
 * headers were already sent), never an unhandled rejection.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  HttpPath,
  type Clients,
  type Health,
  type Readiness,
  type Stats,
} from '../../shared/http-api';
import type { Settings } from '../config/settings-schema';
import { pageDlq, parseDlqQuery, type PageableEntry } from './dlq-page';

/** `/api/realms/{realm}/dlq`: one decoded path segment for the realm (§10.6). */
const DLQ_PATH = /^\/api\/realms\/([^/]+)\/dlq$/;

export interface HttpApiDeps {
  settings: () => Settings;
  health: () => Health;
  /** `GET /ready` (Switchboard extension): answered 200 when `ready`, else 503. */
  ready: () => Readiness;
  stats: () => Stats;
  /** `GET /api/clients` (Switchboard extension): registrations per realm. */
  clients: () => Clients;
  metrics: () => Promise<{ contentType: string; body: string }>;
  /** DLQ entries of a realm (§10.6), oldest first. */
  listDlq: (realm: string) => Promise<readonly PageableEntry[]>;
  onError: (err: unknown) => void;
  /**
   * The request policy (`http/request-policy.ts`: Host and Origin): false when it refused
   * the request and answered it (403).
   */
  admit: (req: IncomingMessage, res: ServerResponse) => boolean;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** Sends `body` (JSON text already) with `status`. */
function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/**
 * Runs an async route to its answer: whatever `work` throws or rejects with becomes a 500
 * (logged through `onError`), or a destroyed response when part of it was already sent.
 */
function answer(
  res: ServerResponse,
  onError: (err: unknown) => void,
  work: () => Promise<void>,
  failure: (err: unknown) => string,
): void {
  const fail = (err: unknown): void => {
    try {
      onError(err);
    } catch {
      // A failing logger must not turn into an unhandled rejection either.
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(res, 500, { ok: false, code: 500, message: failure(err) });
  };
  try {
    work().catch(fail);
  } catch (err) {
    fail(err);
  }
}

/** The liveness and readiness paths, served under `http_api.health`. */
function isHealthPath(path: string): boolean {
  return (
    path === HttpPath.HEALTH ||
    path === HttpPath.HEALTHZ ||
    path === HttpPath.READY ||
    path === HttpPath.READYZ
  );
}

/** A bare 403 with an empty body (§10.1). */
export function forbidden(res: ServerResponse): void {
  res.writeHead(403, { 'content-length': 0 });
  res.end();
}

/**
 * Builds the request handler. It returns true when it answered the request, false when the
 * path is not one of the API's (the caller then answers 403 or leaves it to its own server).
 */
export function createHttpApi(deps: HttpApiDeps) {
  const route = routeRequest(deps);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    try {
      return route(req, res);
    } catch (err) {
      // A synchronous failure (e.g. stats of a registry mid-change) answers like an async one.
      answer(
        res,
        deps.onError,
        () => Promise.reject(err),
        () => 'internal error',
      );
      return true;
    }
  };
}

function routeRequest(deps: HttpApiDeps) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const api = deps.settings().http_api;
    if (!api.enabled || req.method !== 'GET' || !req.url) return false;
    let path: string;
    let url: URL;
    try {
      url = new URL(req.url, 'http://broker');
      path = decodeURIComponent(url.pathname);
    } catch {
      return false;
    }
    // Matched on the raw path so that an encoded `/` stays inside the realm segment.
    const dlq = api.stats ? DLQ_PATH.exec(url.pathname) : null;
    const ours =
      dlq !== null ||
      (isHealthPath(path) && api.health) ||
      ((path === HttpPath.STATS || path === HttpPath.CLIENTS) && api.stats) ||
      (path === HttpPath.METRICS && api.metrics);
    if (!ours) return false;
    if (!deps.admit(req, res)) return true;
    if (dlq) {
      let realm: string;
      try {
        realm = decodeURIComponent(dlq[1]!);
      } catch {
        return false;
      }
      const query = parseDlqQuery(url.searchParams);
      if (typeof query === 'string') {
        sendJson(res, 400, { ok: false, code: 400, message: query });
        return true;
      }
      answer(
        res,
        deps.onError,
        async () => {
          const page = pageDlq(await deps.listDlq(realm), query, api.max_response_bytes);
          sendJsonText(
            res,
            200,
            `{"realm":${JSON.stringify(realm)},"entries":[${page.entries.join(',')}],` +
              `"next_cursor":${JSON.stringify(page.next_cursor)}}`,
          );
        },
        (err) => (err instanceof Error ? err.message : 'DLQ unavailable'),
      );
      return true;
    }
    if ((path === HttpPath.HEALTH || path === HttpPath.HEALTHZ) && api.health) {
      sendJson(res, 200, deps.health());
      return true;
    }
    if ((path === HttpPath.READY || path === HttpPath.READYZ) && api.health) {
      const readiness = deps.ready();
      sendJson(res, readiness.ready ? 200 : 503, readiness);
      return true;
    }
    if (path === HttpPath.STATS && api.stats) {
      sendJson(res, 200, deps.stats());
      return true;
    }
    if (path === HttpPath.CLIENTS && api.stats) {
      sendJson(res, 200, deps.clients());
      return true;
    }
    if (path === HttpPath.METRICS && api.metrics) {
      answer(
        res,
        deps.onError,
        async () => {
          const { contentType, body } = await deps.metrics();
          res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
          res.end(body);
        },
        () => 'metrics unavailable',
      );
      return true;
    }
    return false;
  };
}
