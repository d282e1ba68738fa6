/**
 * `POST /pub/:realm/:event` and `POST /pub/:realm?event=…` (`spec/protocol-extensions.md`
 * §5.3): the checks in the spec's order, then the message is routed exactly as a socket.io
 * `PRODUCE` (core §7): live and durable delivery, guaranteed copies for offline subscribers,
 * realm `*`, the cluster relay, MQTT subscribers, the SSE fan-out and history.
 *
 * Departures (secure behaviour of the Notes): path segments are percent-decoded like `/sub`'s
 * (Note 5-A, `pathSegments`); no placeholder producer is created in the realm registry
 * (Note 5-H). Replies: `202 {ok:true, msg_id}`, or `{ok:false, code, message}` per §5.3.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { E2eePolicy, e2eeRequiredText } from '../../shared/protocol-extensions';
import { ProtocolErrorCode } from '../../shared/protocol-events';
import type { AuthState } from '../auth/auth-state';
import { realmE2eePolicy } from '../auth/e2ee-policy';
import type { TokenValidator } from '../auth/token-validator';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { Embedding } from '../policy/embedding';
import type { ProducedMessage } from '../routing/produced-message';
import type { Router } from '../routing/router';
import type { HttpBuckets } from './http-buckets';
import { HTTP_PUBLISH_MAX_BODY } from './http-publish-schema';
import {
  bearerToken,
  checkToken,
  fail,
  isPrototypeKey,
  methodNotAllowed,
  sendJson,
  type pathSegments,
} from './http-reply';
import { newDeliveryId } from '../routing/delivery-id';

/** Past this much body the connection is closed after the 413 instead of drained further. */
const MAX_DRAIN = 1024 * 1024;
/** `"http:" + the first 8 hex chars of SHA-256(token)` (§5.3; Note 5-H: tokens must be random). */
export const httpProducerName = (token: string): string =>
  `http:${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;

export interface PublishDeps {
  auth: AuthState;
  tokens: TokenValidator;
  router: Router;
  embed: Embedding | undefined;
  metrics: BrokerMetrics;
  buckets: HttpBuckets;
  requestIp: (req: IncomingMessage) => string;
  logger: Logger;
}

type Body = { ok: true; bytes: Buffer } | { ok: false; status: 413 | 400 };

/** Reads the body; past the cap, answers 413 at once and reads the rest to discard it (§5.3 row 8). */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (b: Body) => {
      if (!settled) resolve(b);
      settled = true;
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= HTTP_PUBLISH_MAX_BODY) chunks.push(chunk);
      else if (!settled) {
        fail(res, 413, 'payload too large');
        done({ ok: false, status: 413 });
      } else if (size > MAX_DRAIN) req.destroy();
    });
    req.on('end', () => done({ ok: true, bytes: Buffer.concat(chunks) }));
    req.on('error', () => done({ ok: false, status: 400 }));
  });
}

function parseMessage(text: string, contentType: string | undefined): unknown {
  if (!contentType || !/application\/json/i.test(contentType)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Handles a claimed `/pub` request (the flag is on). */
export async function handlePublish(
  deps: PublishDeps,
  req: IncomingMessage,
  res: ServerResponse,
  path: NonNullable<ReturnType<typeof pathSegments>>,
): Promise<void> {
  if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
  const { segments, query } = path;
  if (segments.length !== 2 && segments.length !== 3)
    return fail(res, 400, 'malformed publish path');
  const realm = segments[1] ?? '';
  const event = segments.length === 3 ? segments[2]! : (query.get('event') ?? '');
  if (realm === '' || event === '') return fail(res, 400, 'realm and event are required');
  if (isPrototypeKey(realm) || isPrototypeKey(event))
    return fail(res, 400, 'invalid realm or event');
  const token = bearerToken(req);
  if (!token) return fail(res, 401, 'Bearer token required');
  const ip = deps.requestIp(req);
  const limited = deps.buckets.take('http', ip);
  if (limited) {
    return sendJson(
      res,
      429,
      { ok: false, code: 429, message: 'rate limit reached', retry_after: limited.retryAfter },
      { 'retry-after': String(limited.retryAfter) },
    );
  }
  const body = await readBody(req, res);
  if (!body.ok) {
    if (body.status === 400) fail(res, 400, 'error reading request body');
    deps.logger.warn({ realm, status: body.status }, 'HTTP publish body refused');
    return;
  }
  const hash = createHash('sha256').update(token).digest('hex');
  const auth = await checkToken(
    deps.tokens,
    deps.logger,
    token,
    realm,
    ip,
    'producer',
    'token is not authorized to publish',
    hash,
  );
  if (!auth.ok) {
    deps.logger.info({ realm, status: auth.status }, 'HTTP publish refused');
    return fail(res, auth.status, auth.message);
  }
  // §1.6, §5.3: a `required` realm refuses every HTTP publish (the body is never encrypted).
  if (realmE2eePolicy(deps.auth, realm) === E2eePolicy.REQUIRED) {
    return sendJson(res, 403, {
      ok: false,
      code: ProtocolErrorCode.E2EE_REQUIRED,
      message: e2eeRequiredText(realm),
    });
  }
  const contentType = req.headers['content-type'];
  const broadcastParam = query.get('broadcast');
  const group = query.get('group');
  const guaranteed = query.get('guaranteed');
  const msg: ProducedMessage = {
    realm,
    event,
    message: parseMessage(body.bytes.toString('utf8'), contentType),
    from: httpProducerName(token),
    // No TTL: the store default applies (core §9.3).
    ttl: undefined,
    guaranteed: guaranteed === '1' || guaranteed === 'true',
    broadcast: broadcastParam ? (broadcastParam === 'group' && group ? 'group' : 'realm') : null,
    group: group || null,
    ...(contentType !== undefined ? { contentType } : {}),
    origin: 'local',
    deliveryId: newDeliveryId(),
    receivedAt: performance.now(),
  };
  deps.metrics.messageProduced(realm, event);
  const stored = deps.router.route(msg);
  if (deps.embed?.observesPublish) deps.embed.routed(msg, null);
  // The 202 follows the synchronous routing; durable enqueues finish on their own (§5.3).
  for (const outcome of stored) {
    void outcome.then((o) => {
      if (!o.ok)
        deps.logger.warn(
          { realm, event, reason: o.error.message },
          'HTTP publish: durable copy not stored',
        );
    });
  }
  sendJson(res, 202, { ok: true, msg_id: msg.deliveryId });
}
