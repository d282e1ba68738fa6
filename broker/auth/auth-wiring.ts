/**
 * Auth services as `createBroker` wires them: the admin-token bootstrap kept true after every
 * settings change (`spec/protocol-admin.md` §5), and the authorization-request registry with
 * its live caps (§7, §11.3).
 */
import { parseRealmTtlMs } from '../../shared/realm-ttl';
import type { Logger } from '../logging/logger';
import { bootstrapAdminToken } from './admin-bootstrap';
import type { AuthState } from './auth-state';
import {
  AuthorizationRequests,
  DEFAULT_REQUEST_TTL_MS,
  type RequestLimits,
} from './authorization-requests';
import type { RequestStore } from './request-store';

/**
 * Runs the §5 bootstrap now and again after every change that did not come from it (deferred
 * to a microtask, so listeners see commits in order).
 * @throws what the first bootstrap throws (an unwritable env file stops the broker).
 */
export function keepAdminToken(auth: AuthState, logger: Logger, env: NodeJS.ProcessEnv): void {
  bootstrapAdminToken(auth, logger, env);
  auth.onChange((_next, _prev, origin) => {
    if (origin === 'bootstrap') return;
    queueMicrotask(() => {
      try {
        bootstrapAdminToken(auth, logger, env);
      } catch (err) {
        logger.error({ err }, 'admin token bootstrap failed');
      }
    });
  });
}

/**
 * The §7 registry: pending caps read live (`maxPending`, undefined = unlimited), expiry from
 * `auth.request_ttl` (realm TTL grammar; default 24 h), tokens checked against the live config.
 */
export function authorizationRequests(
  auth: AuthState,
  maxPending: RequestLimits['maxPending'],
  nodeId: string | null,
  store?: RequestStore | null,
  logger?: Logger,
): AuthorizationRequests {
  return new AuthorizationRequests(
    {
      maxPending,
      // The realm TTL grammar (§9.1, with `d`), the one the settings schema checks it against.
      ttlMs: () => parseRealmTtlMs(auth.config.request_ttl) ?? DEFAULT_REQUEST_TTL_MS,
      tokenExists: (hash) => auth.tokenByHash(hash) !== undefined,
      nodeId,
    },
    store ?? undefined,
    (err) => logger?.error({ err: err.message }, 'authorization request not persisted'),
  );
}
