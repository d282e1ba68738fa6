/**
 * The broker's whole HTTP surface on its own port: `POST /api/realms` (realm provisioning,
 * `spec/protocol-admin.md` §10.7) and the read routes of §10.1–§10.6 behind the admin bearer
 * check. Returns a handler that answers (true) or leaves the request to the caller (false).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthState } from '../auth/auth-state';
import { requireAdminBearer } from '../auth/http-bearer';
import type { LimitsService } from '../limits/limits-service';
import type { Logger } from '../logging/logger';
import { createHttpApi, type HttpApiDeps } from './http-api';
import { createRealmProvisioning } from './realm-provisioning';

export interface BrokerHttpDeps extends Omit<HttpApiDeps, 'onError'> {
  auth: AuthState;
  logger: Logger;
  /** `realms_per_hour_per_ip` of realm provisioning. */
  rateLimits: LimitsService;
}

export function createBrokerHttp(
  deps: BrokerHttpDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { auth, logger, rateLimits, ...api } = deps;
  const adminApi = requireAdminBearer(
    createHttpApi({
      ...api,
      onError: (err) => logger.error({ err }, 'HTTP API request failed'),
    }),
    auth,
    api.settings,
  );
  const provisioning = createRealmProvisioning({
    settings: api.settings,
    auth,
    logger,
    rateLimit: (req) =>
      rateLimits.realmCreationRefusal(rateLimits.requestIp(req))?.retryAfter ?? null,
  });
  return (req, res) => provisioning(req, res) || adminApi(req, res);
}
