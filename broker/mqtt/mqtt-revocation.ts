/**
 * Ends MQTT sessions whose credentials went away, like `auth/session-revocation.ts` does for
 * socket.io: a revoked (or re-scoped) static token, a removed realm, auth switched on under
 * clients admitted while it was off, or a token-less consumer whose realm withdrew
 * `allow_tokenless_consumers` (issue 20). Their persistent sessions stay stored but can only be
 * resumed by a client that authenticates again (a disposed realm's are deleted:
 * mqtt-realm-purge.ts).
 */
import type { Aedes, Client } from 'aedes';
import type { AuthState } from '../auth/auth-state';
import { tokenlessConsumersAllowed } from '../auth/realm-policy';
import type { Logger } from '../logging/logger';
import type { MqttAuth } from './mqtt-auth';
import { dropWill, endSession } from './end-session';

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Watches `auth` and closes the affected clients of `aedes()`; returns the unsubscribe. */
export function watchMqttRevocations(
  auth: AuthState,
  mqttAuth: MqttAuth,
  aedes: () => Aedes | null,
  logger: Logger,
): () => void {
  return auth.onChange((next, prev) => {
    setImmediate(() => {
      const broker = aedes();
      if (!broker || !auth.enabled) return;
      const clients = (broker as unknown as { clients: Record<string, Client> }).clients;
      for (const client of Object.values(clients)) {
        const id = mqttAuth.identity(client);
        if (!id) continue;
        let reason: string | null = null;
        if (!prev.enabled && !id.authenticated) reason = 'auth enabled';
        else if (id.tokenHash !== null) {
          const entry = auth.tokenByHash(id.tokenHash);
          if (
            !entry ||
            (entry.realm !== id.realm && entry.realm !== '*') ||
            entry.role !== id.role
          ) {
            reason = 'token revoked';
          }
        } else if (
          !id.authenticated &&
          id.role === 'consumer' &&
          !tokenlessConsumersAllowed(auth, id.realm)
        ) {
          // Issue 20: a token-less consumer whose realm withdrew `allow_tokenless_consumers`.
          reason = 'token-less consumers no longer allowed';
        }
        if (reason === null && has(prev.realms, id.realm) && !has(next.realms, id.realm)) {
          reason = 'realm removed';
        }
        if (reason !== null) {
          logger.info({ mqttClient: id.clientId, realm: id.realm, reason }, 'MQTT session ended');
          // Nothing more is published for credentials that went away, its will included (as a
          // restored will of a revoked identity is not either).
          dropWill(client);
          endSession(client, reason);
        }
      }
    });
  });
}
