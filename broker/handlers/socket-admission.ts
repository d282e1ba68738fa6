/**
 * Admission of a socket.io client: the one place where a socket becomes authenticated with a
 * realm and role (`spec/protocol-admin.md` §2.1 auth disabled, §2.3 `AUTHENTICATION`, §3.4
 * implicit admission), and where the embedding API's `authenticate` hook decides
 * (docs/embedding.md). Without a hook the grant applies at once, synchronously.
 *
 * With a hook, the socket's later events wait in `socket.data.authQueue` (as they do while a
 * token is validated) and are replayed in order once the hook has decided. A refusal — the hook
 * resolving `false`, throwing or rejecting — is answered by the caller (`AUTH_FAIL 401`) and
 * reported as `clientError`; the socket stays unauthenticated.
 */
import type { ClientEventName } from '../../shared/protocol-events';
import type { SessionCredential } from '../auth/session-credential';
import { armSessionExpiry } from '../auth/session-revocation';
import type { HandlerContext } from './handler-context';
import type { BrokerSocket, SocketData } from '../transport/socket-types';
import { asError, AUTH_REFUSED } from '../policy/embedding';
import type { ClientCredentials } from '../policy/embedding-types';

/** What Switchboard's own authentication granted. */
export interface SocketGrant {
  realm: string;
  role: string;
  tokenHash: string | null;
  /** SHA-256 hex of the token presented, whatever validated it (`SocketData.principal`). */
  principal?: string | null;
  /** What admitted the session and until when; null/absent for no credential (issue 20). */
  credential?: SessionCredential | null;
  /** A token-less consumer of a realm requiring auth (issue 20; `SocketData.tokenless`). */
  tokenless?: boolean;
  /** What admitted it (`static`, `jwt`, `open-realm`…; client_detail); absent = `implicit`. */
  via?: string;
}

/** AUTH_FAIL message when the hook resolves `false`. */

/** The credentials a socket presented: the `AUTHENTICATION` fields and the handshake `auth`. */
export function socketCredentials(
  socket: BrokerSocket,
  payload: Record<string, unknown> = {},
): ClientCredentials {
  const credentials: ClientCredentials = {
    handshake: (socket.handshake.auth as Record<string, unknown> | undefined) ?? {},
  };
  if (typeof payload.token === 'string') credentials.token = payload.token;
  if (typeof payload.key === 'string') credentials.key = payload.key;
  return credentials;
}

/** Replays, in order, events a socket sent while its admission was being decided. */
export function replayQueued(
  ctx: HandlerContext,
  socket: BrokerSocket,
  queue: SocketData['authQueue'],
): void {
  for (const item of queue ?? []) {
    if (!socket.connected) return;
    ctx.dispatch(socket, item.event as ClientEventName, item.raw, item.ack);
  }
}

function grantTo(data: SocketData, grant: SocketGrant): void {
  data.realm = grant.realm;
  data.role = grant.role;
  data.tokenHash = grant.tokenHash;
  data.principal = grant.principal ?? null;
  data.credential = grant.credential ?? null;
  data.tokenless = grant.tokenless === true;
}

/**
 * Admits `socket` with `grant` once the `authenticate` hook (if any) accepts it, then calls
 * `admitted` (which answers the client) and emits `client`; calls `refused(message)` instead
 * when the hook refuses. Returns a promise while the hook runs (never rejects), else undefined.
 */
export function admitSocket(
  ctx: HandlerContext,
  socket: BrokerSocket,
  grant: SocketGrant,
  credentials: ClientCredentials,
  admitted: () => void,
  refused: (message: string) => void,
): Promise<void> | undefined {
  const data = socket.data;
  const embed = ctx.embed;
  const hook = embed?.hooks.authenticate;
  if (!embed || !hook) {
    grantTo(data, grant);
    data.authenticated = true;
    armSessionExpiry(socket, ctx.logger);
    ctx.clients?.admitted(socket, grant.via ?? 'implicit');
    admitted();
    embed?.socketAdmitted(socket);
    return undefined;
  }
  // The hook sees the client as it would be admitted; restored if refused.
  const before: SocketGrant = {
    realm: data.realm,
    role: data.role,
    tokenHash: data.tokenHash,
    principal: data.principal,
    credential: data.credential,
    tokenless: data.tokenless,
  };
  grantTo(data, grant);
  const client = embed.socketClient(socket);
  // Someone else's queue (a token validation) is flushed by them after this promise.
  const ownQueue = data.authQueue === null;
  if (ownQueue) data.authQueue = [];
  const settle = (decide: () => void) => {
    const queue = ownQueue ? data.authQueue : null;
    if (ownQueue) data.authQueue = null;
    try {
      decide();
    } finally {
      replayQueued(ctx, socket, queue);
    }
  };
  return Promise.resolve()
    .then(() => hook(client, credentials))
    .then(
      (ok) => {
        if (ok === false) throw new Error(AUTH_REFUSED);
        settle(() => {
          data.authenticated = true;
          armSessionExpiry(socket, ctx.logger);
          ctx.clients?.admitted(socket, grant.via ?? 'implicit');
          admitted();
          embed.socketAdmitted(socket);
        });
      },
      (err: unknown) => {
        throw asError(err);
      },
    )
    .catch((err: Error) => {
      embed.hookFailed(client, 'authenticate', err);
      settle(() => {
        grantTo(data, before);
        if (socket.connected) refused(err.message || AUTH_REFUSED);
      });
    })
    .catch((err: unknown) => ctx.logger.error({ err, socket: socket.id }, 'admission failed'));
}
