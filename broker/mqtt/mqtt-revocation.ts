/**
 * Ends MQTT sessions whose credentials went away, like `auth/session-revocation.ts` does for
 * socket.io: a revoked (or re-scoped) static token, a removed realm, auth switched on under
 * clients admitted while it was off, a JWT past its `exp` (a timer per client), or a rotated
 * secret that admitted the client — the `jwt_secret`, a realm's `manager_key` or pre-shared
 * `key`, an external validator's URL or secret (session-credential.ts), or a token-less
 * consumer whose realm withdrew `allow_tokenless_consumers`. Their persistent
 * sessions stay stored but can only be resumed by a client that authenticates again (a disposed
 * realm's are deleted: mqtt-realm-purge.ts).
 *
 * Every one gets DISCONNECT 0x87 "Not authorized" (MQTT 5) with the reason as Reason String —
 * `token revoked`, `realm removed`, `auth enabled`, `token expired`, `credentials changed`; a
 * 3.1.1 client is closed (end-session.ts). Clients reconnect with their own back-off and
 * authenticate again; only a credential that holds is admitted.
 */
import type { Aedes, Client } from 'aedes';
import type { AuthState } from '../auth/auth-state';
import { credentialEnded, onExpiry } from '../auth/session-credential';
import { tokenlessConsumersAllowed } from '../auth/realm-policy';
import type { Logger } from '../logging/logger';
import type { MqttAuth } from './mqtt-auth';
import { dropWill, endSession } from './end-session';

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

const clientsOf = (broker: Aedes) =>
  (broker as unknown as { clients: Record<string, Client> }).clients;

/** Watches `auth` and closes the affected clients of `aedes()`; returns the unsubscribe. */
export function watchMqttRevocations(
  auth: AuthState,
  mqttAuth: MqttAuth,
  aedes: () => Aedes | null,
  logger: Logger,
): () => void {
  const end = (client: Client, realm: string, clientId: string, reason: string) => {
    logger.info({ mqttClient: clientId, realm, reason }, 'MQTT session ended');
    // Nothing more is published for credentials that went away, its will included (as a
    // restored will of a revoked identity is not either).
    dropWill(client);
    endSession(client, reason);
  };

  // A JWT's `exp`: one timer per admitted client, cancelled when it goes.
  const timers = new Map<Client, () => void>();
  const cancel = (client: Client) => {
    timers.get(client)?.();
    timers.delete(client);
  };
  const arm = (client: Client) => {
    cancel(client);
    const id = mqttAuth.identity(client);
    const expiresAt = id?.credential?.expiresAt ?? null;
    if (!id || expiresAt === null) return;
    timers.set(
      client,
      onExpiry(expiresAt, () => {
        timers.delete(client);
        const broker = aedes();
        if (broker && clientsOf(broker)[client.id] === client && auth.enabled) {
          end(client, id.realm, id.clientId, 'token expired');
        }
      }),
    );
  };
  const broker = aedes();
  broker?.on('client', arm);
  broker?.on('clientDisconnect', cancel);

  const stop = auth.onChange((next, prev) => {
    setImmediate(() => {
      const broker = aedes();
      if (!broker || !auth.enabled) return;
      const now = Date.now();
      for (const client of Object.values(clientsOf(broker))) {
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
        reason ??= credentialEnded(auth.config, id.credential ?? null, now);
        if (reason !== null) {
          cancel(client);
          end(client, id.realm, id.clientId, reason);
        }
      }
    });
  });
  return () => {
    stop();
    broker?.off('client', arm);
    broker?.off('clientDisconnect', cancel);
    for (const cancelTimer of timers.values()) cancelTimer();
    timers.clear();
  };
}
