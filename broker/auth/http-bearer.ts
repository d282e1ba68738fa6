/**
 * The "Bearer admin token" check of the HTTP API, in front of the API's own handler.
 *
 * Source: `spec/protocol-admin.md` §10.2 (`Authorization: Bearer <global admin token>`, scheme
 * case-insensitive, compared by SHA-256 digest; not required while auth is disabled; failure
 * `401 {ok:false, code:401, message:"Bearer admin token required"}`), §10.3 (`/health` stays
 * public; so does Switchboard's `/ready`: probes carry no token), §10.4 (`metrics_auth: false`
 * opens `/api/metrics`), §10.5–§10.6.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpPath } from '../../shared/http-api';
import type { Settings } from '../config/settings-schema';
import { tokenHash, type AuthState } from './auth-state';

export const BEARER_REQUIRED = 'Bearer admin token required';

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Whether `req` carries a global admin token (`realm:"*"`, `role:"admin"`) as its bearer. */
export function hasAdminBearer(auth: AuthState, req: IncomingMessage): boolean {
  const m = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const entry = auth.tokenByHash(tokenHash(m[1]!));
  return entry?.realm === '*' && entry.role === 'admin';
}

/**
 * Wraps the HTTP API handler: with auth enabled, `GET /api/metrics` (unless `metrics_auth:
 * false`), `/api/stats`, `/api/clients` and `/api/realms/{realm}/dlq` need the admin bearer while their route is
 * on; a refusal is answered here with 401. Other requests go to `inner` unchanged.
 */
export function requireAdminBearer(
  inner: Handler,
  auth: AuthState,
  settings: () => Settings,
): Handler {
  return (req, res) => {
    const api = settings().http_api;
    if (!auth.enabled || !api.enabled || req.method !== 'GET' || !req.url) return inner(req, res);
    let rawPath: string;
    let path: string;
    try {
      rawPath = new URL(req.url, 'http://broker').pathname;
      path = decodeURIComponent(rawPath);
    } catch {
      return inner(req, res);
    }
    // A route switched off is not guarded: the API answers it with the bare 403 (§10.1).
    const guarded =
      (path === HttpPath.METRICS && api.metrics && api.metrics_auth) ||
      (api.stats &&
        (path === HttpPath.STATS ||
          path === HttpPath.CLIENTS ||
          /^\/api\/realms\/[^/]+\/dlq$/.test(rawPath)));
    if (!guarded) return inner(req, res);
    if (hasAdminBearer(auth, req)) return inner(req, res);
    const body = JSON.stringify({ ok: false, code: 401, message: BEARER_REQUIRED });
    res.writeHead(401, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(body);
    return true;
  };
}
