/**
 * Ends live sessions whose credentials went away: a revoked static token, a removed or renamed
 * realm, auth switched on under sockets that were admitted while it was off, or a token-less
 * consumer whose realm withdrew `allow_tokenless_consumers` (issue 20).
 *
 * Source: `spec/protocol-admin.md` §3.5 note (harden: disconnect sockets authenticated with a
 * revoked token, tracked by token hash per socket), §18 item 7. Runs on the turn after a
 * committed auth change, so the disconnect happens well within a second.
 */
import type { Logger } from '../logging/logger';
import { closeForReconnect } from '../transport/reconnect-close';
import type { BrokerSocket } from '../transport/socket-types';
import type { AuthConfig } from './auth-schema';
import type { AuthState } from './auth-state';
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
    for (const socket of sockets()) {
      const data = socket.data;
      if (!data.authenticated) continue;
      let reason: string | null = null;
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
      if (reason !== null) {
        logger.info({ socket: socket.id, realm: data.realm, reason }, 'session ended');
        // Auth turned on: the client must come back and authenticate (issue 19); a revoked
        // token or a removed realm ends the client (socket.io's final DISCONNECT).
        if (reason === 'auth enabled') closeForReconnect(socket);
        else socket.disconnect(true);
      }
    }
  };
  return auth.onChange((_next, prev) => {
    if (before !== null) return;
    before = prev;
    setImmediate(check);
  });
}
