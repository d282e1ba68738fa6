/**
 * `POST /sub-ticket/:realm` (§5.4) and `GET /sub/:realm/:event` (§5.5) of
 * `spec/protocol-extensions.md`: the checks in the spec's order, then the stream opens
 * (`200 text/event-stream`, `: ok` first) and, with `Last-Event-ID` or `?since`, catches up on
 * the SSE history (§5.7). Path segments follow the one decoding rule (`pathSegments`); no
 * wildcards: a stream matches its (realm, event) exactly (§5.6).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenValidator } from '../auth/token-validator';
import type { Logger } from '../logging/logger';
import type { HttpBuckets } from './http-buckets';
import type { HttpPublishSettings } from './http-publish-schema';
import {
  bearerToken,
  checkToken,
  fail,
  isPrototypeKey,
  methodNotAllowed,
  sendJson,
  type HttpPrincipal,
  type pathSegments,
} from './http-reply';
import type { SseHub } from './sse-hub';
import { closeOnExpiry } from './stream-revocation';
import type { SseTickets } from './sse-tickets';

export interface SubscribeDeps {
  tokens: TokenValidator;
  hub: SseHub;
  tickets: SseTickets;
  buckets: HttpBuckets;
  settings: () => HttpPublishSettings;
  requestIp: (req: IncomingMessage) => string;
  logger: Logger;
}

type Path = NonNullable<ReturnType<typeof pathSegments>>;
const SUBSCRIBE_REFUSED = 'token is not authorized to subscribe';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function rateLimited(deps: SubscribeDeps, res: ServerResponse, ip: string): boolean {
  const limited = deps.buckets.take('sse', ip);
  if (!limited) return false;
  sendJson(
    res,
    429,
    { ok: false, code: 429, message: 'rate limit reached', retry_after: limited.retryAfter },
    { 'retry-after': String(limited.retryAfter) },
  );
  return true;
}

/** `POST /sub-ticket/:realm` (§5.4). */
export async function handleTicket(
  deps: SubscribeDeps,
  req: IncomingMessage,
  res: ServerResponse,
  path: Path,
): Promise<void> {
  const ip = deps.requestIp(req);
  if (rateLimited(deps, res, ip)) return;
  if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
  const realm = path.segments[1] ?? '';
  if (realm === '') return fail(res, 400, 'realm is required');
  if (isPrototypeKey(realm)) return fail(res, 400, 'invalid realm');
  const token = bearerToken(req);
  if (!token) return fail(res, 401, 'Bearer token required');
  const auth = await checkToken(
    deps.tokens,
    deps.logger,
    token,
    realm,
    ip,
    'consumer',
    SUBSCRIBE_REFUSED,
    sha256(token),
  );
  if (!auth.ok) return fail(res, auth.status, auth.message);
  const ttl = deps.settings().ticket_ttl_ms;
  const ticket = deps.tickets.issue(realm, auth.principal, ttl);
  sendJson(res, 200, { ok: true, ticket, expires_in: Math.ceil(ttl / 1000) });
}

/** `GET /sub/:realm/:event` (§5.5); resolves once the stream is open (or refused). */
export async function handleSubscribe(
  deps: SubscribeDeps,
  req: IncomingMessage,
  res: ServerResponse,
  path: Path,
): Promise<void> {
  const ip = deps.requestIp(req);
  if (rateLimited(deps, res, ip)) return;
  if (req.method !== 'GET') return methodNotAllowed(res, 'GET');
  const [, realm = '', event = ''] = path.segments;
  if (realm === '' || event === '') return fail(res, 400, 'realm and event are required');
  if (isPrototypeKey(realm) || isPrototypeKey(event))
    return fail(res, 400, 'invalid realm or event');
  const token = bearerToken(req);
  const ticket = path.query.get('ticket');
  let principal: HttpPrincipal;
  if (token) {
    const auth = await checkToken(
      deps.tokens,
      deps.logger,
      token,
      realm,
      ip,
      'consumer',
      SUBSCRIBE_REFUSED,
      sha256(token),
    );
    if (!auth.ok) return fail(res, auth.status, auth.message);
    principal = auth.principal;
  } else if (path.query.has('token')) {
    return fail(res, 401, 'use a ticket, not a token, in the query string');
  } else if (ticket) {
    const taken = deps.tickets.take(ticket);
    if (!taken) return fail(res, 401, 'invalid or expired ticket');
    if (taken.realm !== realm) return fail(res, 403, 'ticket is not scoped to this realm');
    principal = taken.principal;
  } else {
    return fail(res, 401, 'Bearer token or ticket required');
  }
  const cap = deps.hub.capRefusal(realm, ip);
  if (cap) return fail(res, cap.status, cap.message, { 'retry-after': '1' });
  if (res.destroyed) return;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  res.write(': ok\n\n');
  const stream = deps.hub.open(realm, event, ip, principal, res);
  const cancelExpiry = closeOnExpiry(stream);
  res.once('close', cancelExpiry);
  deps.logger.debug({ realm, event }, 'SSE stream opened');
  const lastId = req.headers['last-event-id'];
  const resume =
    (typeof lastId === 'string' && lastId !== '' ? lastId : null) ?? path.query.get('since');
  if (resume) await stream.catchUp(resume, deps.hub.history.read(realm, event));
}
