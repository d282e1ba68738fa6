/**
 * `POST /api/realms` (`spec/protocol-admin.md` §10.7): prefix-scoped realm provisioning for
 * automation, authorized by a management token (`auth.management_tokens[]`), never the admin
 * token. Checks in the spec's order; the realm is created with `add_realm` semantics (or, when
 * it exists, only its manager key is rotated), capped by the token's `ephemeral_only` /
 * `max_ttl`. The manager key is never echoed.
 *
 * Issue 20: the realm is created with `required: true`, which here means consumers need a
 * token, a JWT or the realm's key; `allow_tokenless_consumers: true` in the body opts the realm
 * into the reference's token-less consumers (applied to an existing realm too; a non-boolean is
 * a 400). The reply's shape is the spec's, unchanged.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultRealmTtlMs, parseRealmTtlMs } from '../../shared/realm-ttl';
import { CommandError, hasOwn, pick, type CommandBody } from '../admin/command-types';
import {
  addRealm,
  prefixCovers,
  setRealmManagerKey,
  setRealmTokenlessConsumers,
  tokenlessParam,
} from '../admin/realm-commands';
import type { ManagementToken } from '../auth/auth-schema';
import { tokenHash, type AuthState } from '../auth/auth-state';
import type { Settings } from '../config/settings-schema';
import type { Logger } from '../logging/logger';

/** Largest accepted body (§10.7 step 4): 64 KiB. */
export const MAX_PROVISIONING_BODY = 64 * 1024;
/** Past this much body the connection is closed after the 400 instead of drained further. */
const MAX_DRAIN = 1024 * 1024;

export interface ProvisioningDeps {
  settings: () => Settings;
  auth: AuthState;
  logger: Logger;
  /** `realms_per_hour_per_ip` (§10.7 step 3): seconds to wait, or null when allowed. */
  rateLimit?: (req: IncomingMessage) => number | null;
}

function send(res: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

const fail = (res: ServerResponse, code: number, message: string, close = false) =>
  send(res, code, { ok: false, code, message }, close);

function bearer(req: IncomingMessage): string | null {
  const m = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]!.trim() : null;
}

function matchToken(tokens: readonly ManagementToken[], presented: string) {
  const digest = Buffer.from(tokenHash(presented), 'hex');
  return tokens.find((t) => timingSafeEqual(Buffer.from(tokenHash(t.token), 'hex'), digest));
}

/** Reads the body: `{ok, text}` within the cap, `{ok:false, drained}` past it. */
function readBody(
  req: IncomingMessage,
): Promise<{ ok: true; text: string } | { ok: false; drained: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (v: { ok: true; text: string } | { ok: false; drained: boolean }) => {
      if (!settled) resolve(v);
      settled = true;
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PROVISIONING_BODY) chunks.push(chunk);
      else if (size > MAX_DRAIN) {
        req.pause();
        done({ ok: false, drained: false });
      }
    });
    req.on('end', () =>
      done(
        size > MAX_PROVISIONING_BODY
          ? { ok: false, drained: true }
          : { ok: true, text: Buffer.concat(chunks).toString('utf8') },
      ),
    );
    req.on('error', () => done({ ok: false, drained: false }));
  });
}

/** The request handler; returns true when it answered (a `POST /api/realms`). */
export function createRealmProvisioning(deps: ProvisioningDeps) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'POST' || !deps.settings().http_api.enabled) return false;
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://broker').pathname);
    } catch {
      return false;
    }
    if (path !== '/api/realms') return false;
    void provision(deps, req, res).catch((err: unknown) => {
      deps.logger.error({ err }, 'realm provisioning failed');
      if (!res.headersSent) fail(res, 500, 'internal error');
    });
    return true;
  };
}

async function provision(deps: ProvisioningDeps, req: IncomingMessage, res: ServerResponse) {
  const auth = deps.auth.config;
  const usable = auth.management_tokens.filter((t) => t.token && t.realm_prefix);
  if (!auth.enabled || usable.length === 0) return fail(res, 404, 'not found');
  const presented = bearer(req);
  const token = presented ? matchToken(usable, presented) : undefined;
  if (!token) return fail(res, 401, 'management token required');
  const retryAfter = deps.rateLimit?.(req) ?? null;
  if (retryAfter !== null) {
    return send(res, 429, {
      ok: false,
      code: 429,
      message: 'realm creation rate limit reached',
      retry_after: retryAfter,
    });
  }
  const raw = await readBody(req);
  if (!raw.ok) return fail(res, 400, 'invalid JSON body', !raw.drained);
  let body: CommandBody;
  try {
    const parsed: unknown = raw.text.trim() === '' ? {} : JSON.parse(raw.text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    body = parsed as CommandBody;
  } catch {
    return fail(res, 400, 'invalid JSON body');
  }
  const realm = body.realm;
  if (typeof realm !== 'string' || realm === '') return fail(res, 400, 'realm is required');
  const managerKey = pick(body, 'manager_key', 'managerKey');
  if (typeof managerKey !== 'string' || managerKey === '')
    return fail(res, 400, 'manager_key is required');
  if (!prefixCovers(token.realm_prefix, realm))
    return fail(res, 403, 'realm outside managed prefix');

  const now = Date.now();
  let created = false;
  try {
    const tokenless = tokenlessParam(body);
    deps.auth.update((draft) => {
      if (hasOwn(draft.realms, realm)) {
        setRealmManagerKey(draft, { realm, manager_key: managerKey });
        if (tokenless !== undefined) {
          setRealmTokenlessConsumers(draft, { realm, allow_tokenless_consumers: tokenless });
        }
        return;
      }
      const command: CommandBody = { realm, required: true, manager_key: managerKey };
      const ephemeral =
        !!(body.ephemeral || body.temporary || body.disposable) || !!token.ephemeral_only;
      if (ephemeral) command.ephemeral = true;
      if (body.ttl !== undefined && body.ttl !== null) command.ttl = body.ttl;
      if (tokenless !== undefined) command.allow_tokenless_consumers = tokenless;
      const cap = token.max_ttl === undefined ? null : parseRealmTtlMs(token.max_ttl);
      if (token.ephemeral_only && cap !== null) {
        const requested =
          command.ttl === undefined
            ? defaultRealmTtlMs(draft.ephemeral_realm_ttl)
            : parseRealmTtlMs(command.ttl);
        if (requested !== null) command.ttl = Math.ceil(Math.min(requested, cap) / 1000);
      }
      addRealm(draft, command, now);
      created = true;
    }, 'command');
  } catch (err) {
    if (err instanceof CommandError) return fail(res, err.code, err.message);
    return fail(res, 400, (err as Error).message);
  }
  const config = deps.auth.realm(realm)!;
  deps.logger.info({ realm, created, prefix: token.realm_prefix }, 'realm provisioned over HTTP');
  send(res, 200, {
    ok: true,
    realm,
    created,
    manager_key_configured: true,
    ephemeral: Boolean(config.ephemeral || config.temporary),
    expires_at: config.expires_at ?? null,
  });
}
