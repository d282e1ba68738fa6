/**
 * Ends live sessions whose credentials went away: a revoked static token, a removed or renamed
 * realm, auth switched on under sockets that were admitted while it was off, a JWT past its
 * `exp`, a rotated secret — the `jwt_secret`, a realm's `manager_key` or pre-shared `key`,
 * an external validator's URL or secret — that admitted the session (session-credential.ts),
 * or a token-less consumer whose realm withdrew `allow_tokenless_consumers`.
 *
 * The client is told why (`AUTH_FAIL {code: 401, message}`) before the session ends. Where it
 * may come back with a credential that holds — an expired JWT it can renew, a rotated secret,
 * auth turned on — the transport is closed (`closeForReconnect`) so stock clients reconnect and
 * authenticate again; a revoked token or a removed realm ends the client (`disconnect(true)`).
 *
 * Source: `spec/protocol-admin.md` §3.5 note (harden: disconnect sockets authenticated with a
 * revoked token, tracked by token hash per socket), §18 item 7. Runs on the turn after a
 * committed auth change — on every node of a cluster, which adopts the change through the
 * settings sync — so the session ends well within a second; a JWT's expiry has its own timer.
 */
import { ServerEvent } from '../../shared/protocol-events';
import type { Logger } from '../logging/logger';
import { closeForReconnect } from '../transport/reconnect-close';
import type { BrokerSocket } from '../transport/socket-types';
import type { AuthConfig } from './auth-schema';
import type { AuthState } from './auth-state';
import { credentialEnded, onExpiry } from './session-credential';

/** Why a session was ended. */
export type SessionEnd =
  | 'auth enabled'
  | 'token revoked'
  | 'realm removed'
  | 'token expired'
  | 'credentials changed'
  | 'token-less consumers no longer allowed'
  /** `end_sessions` (issue 22 item 7): the client may come back with a credential that holds. */
  | 'ended by a manager';

/** The `AUTH_FAIL` message a client gets when its session is ended (none for `auth enabled`). */
export function sessionEndMessage(reason: SessionEnd, realm: string): string | null {
  switch (reason) {
    case 'auth enabled':
      return null;
    case 'token revoked':
      return 'Authentication token revoked';
    case 'realm removed':
      return `Realm '${realm}' was removed`;
    case 'token expired':
      return 'Authentication token expired';
    case 'credentials changed':
      return 'Credentials changed; authenticate again';
    case 'token-less consumers no longer allowed':
      return `Realm '${realm}' now requires a token or a valid pre-shared key for consumers`;
    case 'ended by a manager':
      return 'Session ended by a manager; authenticate again';
  }
}

/** Whether a session ended for `reason` may come back (it reconnects and authenticates). */
export const mayReconnect = (reason: SessionEnd): boolean =>
  reason === 'auth enabled' ||
  reason === 'token expired' ||
  reason === 'credentials changed' ||
  reason === 'ended by a manager';

/** Tells `socket`'s client why, then ends its session as `reason` calls for. */
export function endSocketSession(socket: BrokerSocket, reason: SessionEnd, logger: Logger): void {
  const data = socket.data;
  logger.info({ socket: socket.id, realm: data.realm, reason }, 'session ended');
  data.cancelExpiry?.();
  data.cancelExpiry = null;
  const message = sessionEndMessage(reason, data.realm);
  if (message !== null) socket.emit(ServerEvent.AUTH_FAIL, { code: 401, message });
  if (mayReconnect(reason)) closeForReconnect(socket);
  else socket.disconnect(true);
}

/**
 * Arms the end of `socket`'s session at its credential's expiry (a JWT's `exp`), replacing any
 * earlier timer; called once the socket is admitted. The timer is cancelled on disconnect.
 */
export function armSessionExpiry(socket: BrokerSocket, logger: Logger): void {
  const data = socket.data;
  data.cancelExpiry?.();
  data.cancelExpiry = null;
  const expiresAt = data.credential?.expiresAt ?? null;
  if (expiresAt === null) return;
  data.cancelExpiry = onExpiry(expiresAt, () => {
    data.cancelExpiry = null;
    if (socket.connected && data.authenticated) endSocketSession(socket, 'token expired', logger);
  });
}
import { tokenlessConsumersAllowed } from './realm-policy';

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Subscribes to `auth` and disconnects the sessions of `sockets()` that lost their grant.
 * @returns the unsubscribe function.
 */
export function watchRevocations(
  auth: AuthState,
  sockets: () => Iterable<BrokerSocket>,
  logger: Logger,
): () => void {
  // Checked on the next turn, against the config before the first change of the batch: a
  // reload that drops the bootstrapped admin token gets it merged back (a microtask) before
  // anyone is disconnected for it, and a burst of commits costs one pass.
  let before: Readonly<AuthConfig> | null = null;
  const check = () => {
    const prev = before!;
    before = null;
    const next = auth.config;
    if (!next.enabled) return;
    const enabledNow = !prev.enabled;
    const now = Date.now();
    for (const socket of sockets()) {
      const data = socket.data;
      if (!data.authenticated) continue;
      let reason: SessionEnd | null = null;
      if (enabledNow) reason = 'auth enabled';
      else if (data.tokenHash !== null) {
        const entry = auth.tokenByHash(data.tokenHash);
        if (!entry || entry.realm !== data.realm || entry.role !== data.role) {
          reason = 'token revoked';
        }
      } else if (data.tokenless && !tokenlessConsumersAllowed(auth, data.realm)) {
        // Issue 20: admitted under the realm's `allow_tokenless_consumers`, since withdrawn.
        reason = 'token-less consumers no longer allowed';
      }
      if (reason === null && has(prev.realms, data.realm) && !has(next.realms, data.realm)) {
        reason = 'realm removed';
      }
      reason ??= credentialEnded(next, data.credential, now);
      // Auth turned on, a rotated secret: the client must come back and authenticate (issue
      // 19); a revoked token or a removed realm ends the client (socket.io's final DISCONNECT).
      if (reason !== null) endSocketSession(socket, reason, logger);
    }
  };
  return auth.onChange((_next, prev) => {
    if (before !== null) return;
    before = prev;
    setImmediate(check);
  });
}
