/**
 * The opt-in HTTP API on the broker's port: `GET /health` (alias `/healthz`),
 * `GET /api/metrics` (Prometheus text via prom-client), `GET /api/stats` and
 * `GET /api/realms/{realm}/dlq` (`{realm, entries}`, oldest first; off with `stats: false`).
 *
 * Source: `spec/protocol-admin.md` §10.1–§10.6. With auth disabled (this build) no bearer
 * token is required — the Note in §10.8 asks to say so loudly: bind the broker to a trusted
 * interface or leave `http_api.enabled` off. Unhandled requests on the broker's own server
 * get a bare 403; on an external server only our paths are answered.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpPath, type Health, type Stats } from '../../shared/http-api';
import type { Settings } from '../config/settings-schema';

/** `/api/realms/{realm}/dlq`: one decoded path segment for the realm (§10.6). */
const DLQ_PATH = /^\/api\/realms\/([^/]+)\/dlq$/;

export interface HttpApiDeps {
  settings: () => Settings;
  health: () => Health;
  stats: () => Stats;
  metrics: () => Promise<{ contentType: string; body: string }>;
  /** DLQ entries of a realm (§10.6), oldest first. */
  listDlq: (realm: string) => Promise<unknown[]>;
  onError: (err: unknown) => void;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
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
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const api = deps.settings().http_api;
    if (!api.enabled || req.method !== 'GET' || !req.url) return false;
    let path: string;
    let rawPath: string;
    try {
      rawPath = new URL(req.url, 'http://broker').pathname;
      path = decodeURIComponent(rawPath);
    } catch {
      return false;
    }
    // Matched on the raw path so that an encoded `/` stays inside the realm segment.
    const dlq = api.stats ? DLQ_PATH.exec(rawPath) : null;
    if (dlq) {
      let realm: string;
      try {
        realm = decodeURIComponent(dlq[1]!);
      } catch {
        return false;
      }
      deps.listDlq(realm).then(
        (entries) => sendJson(res, 200, { realm, entries }),
        (err: unknown) => {
          deps.onError(err);
          sendJson(res, 500, { ok: false, code: 500, message: (err as Error).message });
        },
      );
      return true;
    }
    if ((path === HttpPath.HEALTH || path === HttpPath.HEALTHZ) && api.health) {
      sendJson(res, 200, deps.health());
      return true;
    }
    if (path === HttpPath.STATS && api.stats) {
      sendJson(res, 200, deps.stats());
      return true;
    }
    if (path === HttpPath.METRICS && api.metrics) {
      deps.metrics().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
          res.end(body);
        },
        (err: unknown) => {
          deps.onError(err);
          sendJson(res, 500, { ok: false, code: 500, message: 'metrics unavailable' });
        },
      );
      return true;
    }
    return false;
  };
}
