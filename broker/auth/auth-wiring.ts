/**
 * Auth services as `createBroker` wires them: the admin-token bootstrap kept true after every
 * settings change (`spec/protocol-admin.md` §5), and the authorization-request registry with
 * its live caps (§7, §11.3).
 */
import { parseTtlSeconds } from '../../shared/duration';
import type { Logger } from '../logging/logger';
import { bootstrapAdminToken } from './admin-bootstrap';
import type { AuthState } from './auth-state';
import { AuthorizationRequests, DEFAULT_REQUEST_TTL_MS } from './authorization-requests';

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
 * The §7 registry: pending cap read live (`maxPending`, undefined = unlimited), expiry from
 * `auth.request_ttl` (default 24 h), tokens checked against the live config.
 */
export function authorizationRequests(
  auth: AuthState,
  maxPending: () => number | undefined,
  nodeId: string | null,
): AuthorizationRequests {
  return new AuthorizationRequests({
    maxPending,
    ttlMs: () => {
      const seconds = parseTtlSeconds(auth.config.request_ttl);
      return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : DEFAULT_REQUEST_TTL_MS;
    },
    tokenExists: (hash) => auth.tokenByHash(hash) !== undefined,
    nodeId,
  });
}
