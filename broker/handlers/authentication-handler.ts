/**
 * `AUTHENTICATION`: grants a socket its realm and role.
 *
 * Source: `spec/protocol-admin.md` §2.3 (the decision order, followed step by step below; exact
 * codes and messages), §3.5 (requirements) with the hardening notes: pre-shared keys compared in
 * constant time (§2.3 note, §18 item 2), no path into realm `*` without a token whose realm is
 * `*` (§18 item 1), and `reject_realm_mismatch` for a token scoped to another realm than the one
 * declared (§2.3 note; the mismatch is always logged), and (issue 20) no token-less consumer in
 * a realm that requires auth unless it sets `allow_tokenless_consumers` (realm-policy.ts): such a
 * consumer must present the realm's key. Tokens and keys are never logged.
 *
 * Token validation may be asynchronous (JWT, external validator). Until it is decided, the
 * socket's other events wait in `socket.data.authQueue` and are replayed in order afterwards,
 * so a client that does not wait for `AUTH_OK` is not refused by the gate meanwhile.
 */
import { Protocol, ServerEvent } from '../../shared/protocol-events';
import { CONNECT_ROLES, RealmName } from '../auth/auth-schema';
import { grantCredential } from '../auth/rate-credential';
import { tokenHash as principalOf } from '../auth/auth-state';
import {
  acceptanceRequired,
  authRequired,
  consumerCredentialRequired,
  keyMatches,
  keyRequired,
  tokenlessConsumersAllowed,
} from '../auth/realm-policy';
import { credentialOf, type SessionCredential } from '../auth/session-credential';
import { isGrant, REFUSAL_MESSAGES } from '../auth/token-validator';
import { admitSocket, replayQueued, socketCredentials } from './socket-admission';
import { RejectReason } from '../limits/limit-metrics';
import type { BrokerSocket } from '../transport/socket-types';
import type { EventHandler, HandlerContext } from './handler-context';

/** Exact `AUTH_FAIL` messages of §2.3. */
export const AuthFailure = {
  BAD_PAYLOAD: 'Invalid authentication payload',
  ALREADY: 'Socket is already authenticated',
  MANAGER: 'Manager role requires manual authorization',
  MISSING_TOKEN: 'Missing authentication token',
  INVALID_TOKEN: 'Invalid authentication token',
  FAILED: 'Authentication failed',
  /** Ours (§18 item 1). */
  ADMIN_REALM: "Realm '*' requires a token for realm '*'",
} as const;

const nonEmpty = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;

/** Answers `AUTH_FAIL` and counts an `unauthorized` rejected input (issue 11). */
function fail(ctx: HandlerContext, socket: BrokerSocket, code: 401 | 403, message: string): void {
  ctx.limits.rejectedInput(RejectReason.UNAUTHORIZED);
  ctx.clients?.authFailed(socket, message);
  socket.emit(ServerEvent.AUTH_FAIL, { code, message });
}

/**
 * Admits the socket (after the embedding `authenticate` hook, if any) and answers `AUTH_OK`.
 * `credential` keys its rate-limit buckets (`auth/rate-credential.ts`); null ⇒ realm and IP.
 */
function admit(
  ctx: HandlerContext,
  socket: BrokerSocket,
  realm: string,
  role: string,
  tokenHash: string | null,
  via: string,
  payload: Record<string, unknown>,
  credential: SessionCredential | null = null,
  /** The rate-limit key of the credential (`auth/rate-credential.ts`), null = realm + IP. */
  rateKey: string | null = null,
  /** A token-less consumer admitted under `allow_tokenless_consumers` (issue 20). */
  tokenless = false,
  /** SHA-256 hex of the token that admitted it (E2EE identity pinning, Note 1.5-A). */
  principal: string | null = null,
): Promise<void> | undefined {
  return admitSocket(
    ctx,
    socket,
    { realm, role, tokenHash, principal, credential, tokenless, via },
    socketCredentials(socket, payload),
    () => {
      ctx.limits.credentialAdmitted(socket, rateKey);
      ctx.logger.info({ socket: socket.id, realm, role, via }, 'socket authenticated');
      socket.emit(ServerEvent.AUTH_OK, { realm, role });
    },
    (message) => fail(ctx, socket, 401, message),
  );
}

const connectRole = (role: string | undefined): string =>
  role !== undefined && (CONNECT_ROLES as readonly string[]).includes(role) ? role : 'both';

export const handleAuthentication: EventHandler<unknown> = (ctx, socket, payload) => {
  const auth = ctx.auth;
  const data = socket.data;
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<
    string,
    unknown
  >;
  // Step 2 (an embedding `authenticate` hook still decides, once, when installed).
  if (!auth.enabled) {
    if (data.authenticated) {
      socket.emit(ServerEvent.AUTH_OK, { realm: Protocol.DEFAULT_REALM, role: 'both' });
      return;
    }
    return void admit(ctx, socket, Protocol.DEFAULT_REALM, 'both', null, 'auth-disabled', p);
  }
  // Step 3.
  if (data.authenticated) return fail(ctx, socket, 403, AuthFailure.ALREADY);
  const token = nonEmpty(p.token);
  const realm = nonEmpty(p.realm);
  const role = nonEmpty(p.role);
  // Realm names become registry keys and metric labels: bounded, never a prototype key (§18.10).
  if (
    realm !== undefined &&
    realm !== Protocol.ADMIN_REALM &&
    !RealmName.safeParse(realm).success
  ) {
    return fail(ctx, socket, 401, AuthFailure.BAD_PAYLOAD);
  }
  // Step 4.
  if (realm !== undefined) data.pendingRealm = realm;
  if (token === undefined) {
    // Step 5.
    if (role === 'manager') return fail(ctx, socket, 401, AuthFailure.MANAGER);
    // Steps 6–7 never admit into `*` (§18 item 1).
    const declared = realm ?? Protocol.DEFAULT_REALM;
    const keyed = Object.prototype.hasOwnProperty.call(p, 'key');
    const openRealm = realm !== undefined && auth.realm(realm)?.required === false;
    if ((openRealm || role !== undefined || keyed) && declared === Protocol.ADMIN_REALM) {
      return fail(ctx, socket, 403, AuthFailure.ADMIN_REALM);
    }
    // Step 6.
    if (openRealm) {
      return void admit(ctx, socket, declared, connectRole(role), null, 'open-realm', p);
    }
    // Step 7.
    if (role !== undefined || keyed) {
      const granted = connectRole(role);
      let credential: SessionCredential | null = null;
      let tokenless = false;
      if (granted !== 'producer') {
        const key = auth.realm(declared)?.key;
        if (keyRequired(auth, declared)) {
          if (!keyMatches(key, p.key)) {
            ctx.logger.warn({ socket: socket.id, realm: declared }, 'pre-shared key refused');
            return fail(ctx, socket, 401, `Realm '${declared}' requires a valid pre-shared key`);
          }
        } else if (!tokenlessConsumersAllowed(auth, declared) && !keyMatches(key, p.key)) {
          // Issue 20: "auth required" holds for consumers too (the key, when set, still counts).
          ctx.logger.warn({ socket: socket.id, realm: declared }, 'token-less consumer refused');
          return fail(ctx, socket, 401, consumerCredentialRequired(declared));
        }
        // Admitted by the key: a rotated key ends the session (issue 20).
        if (key !== undefined && keyMatches(key, p.key)) {
          credential = credentialOf('realm-key', declared, null, key);
        }
        tokenless = authRequired(auth, declared) && !keyMatches(key, p.key);
      }
      if (granted !== 'consumer' && acceptanceRequired(auth, declared)) {
        return fail(ctx, socket, 403, `Producer must be accepted into realm '${declared}'`);
      }
      const via = tokenless ? 'tokenless-consumer' : 'role-declared';
      return void admit(ctx, socket, declared, granted, null, via, p, credential, null, tokenless);
    }
    // Step 8.
    return fail(ctx, socket, 401, AuthFailure.MISSING_TOKEN);
  }
  // Step 9.
  validateToken(ctx, socket, token, realm, p);
};

function validateToken(
  ctx: HandlerContext,
  socket: BrokerSocket,
  token: string,
  declared: string | undefined,
  payload: Record<string, unknown>,
): void {
  const data = socket.data;
  data.authQueue = [];
  ctx.tokens
    .validate(token, declared, ctx.limits.clientIp(socket))
    .then(
      (grant) => {
        if (!isGrant(grant)) {
          ctx.logger.warn(
            { socket: socket.id, realm: declared, refusal: grant.refused },
            'token refused',
          );
          return fail(ctx, socket, 401, REFUSAL_MESSAGES[grant.refused]);
        }
        if (declared !== undefined && grant.realm !== declared) {
          ctx.logger.warn(
            { socket: socket.id, declared, granted: grant.realm, via: grant.via },
            'token scoped to another realm than the one declared',
          );
          if (ctx.auth.config.reject_realm_mismatch) {
            return fail(ctx, socket, 403, `Token is not scoped to realm '${declared}'`);
          }
        }
        const rateKey = grantCredential(grant, token);
        return admit(
          ctx,
          socket,
          grant.realm,
          grant.role,
          grant.tokenHash,
          grant.via,
          payload,
          grant.credential,
          rateKey,
          false,
          principalOf(token),
        );
      },
      (err: unknown) => {
        ctx.logger.warn(
          { socket: socket.id, realm: declared, reason: (err as Error).message },
          'token validation failed',
        );
        fail(ctx, socket, 401, AuthFailure.FAILED);
      },
    )
    .finally(() => flushQueue(ctx, socket));
}

/** Replays, in order, what the socket sent while its token was being validated. */
function flushQueue(ctx: HandlerContext, socket: BrokerSocket): void {
  const queue = socket.data.authQueue;
  socket.data.authQueue = null;
  replayQueued(ctx, socket, queue);
}
