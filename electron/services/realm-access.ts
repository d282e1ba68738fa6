/**
 * Opens a tyo-mq client socket inside one realm of a broker with the console's credentials, for
 * the live tap and the test publisher.
 *
 * How the socket gets in (`spec/protocol-admin.md` §2.3, §3.5, §7): with auth off every socket is
 * in `default`; realm `*` takes the connection's admin token itself; an open realm
 * (`required: false`) admits a role-declared socket; any other realm gets a temporary token the
 * console asks for (`AUTHORIZATION_REQUEST`) and approves itself (signed `AUTHORIZATION_DECIDE`),
 * revoked (`revoke_token`) when the socket is closed. The token never leaves this process.
 */
import { createHash, randomBytes } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { SwitchboardError } from '../../shared/error-catalogue';
import { ClientEvent, Protocol, ServerEvent } from '../../shared/protocol-events';
import type { ManagerClient } from './manager-client';
import { toRealmList } from './manager-pool';

/** How the socket was admitted (see the module comment). */
export type RealmAccess = 'open' | 'admin' | 'temporary' | 'auth-off';

export interface RealmSocket {
  socket: Socket;
  realm: string;
  access: RealmAccess;
  /** SHA-256 hex of the temporary token, else null. */
  tokenHash: string | null;
  /**
   * The token that admitted the socket (the admin token for realm `*`, the temporary token),
   * else null: the MQTT publisher presents it as its password. Never leaves this process.
   */
  token: string | null;
  /** Closes the socket, then revokes a temporary token (best effort). Idempotent. */
  close(): Promise<void>;
}

export interface OpenRealmSocketOptions {
  /** Broker URL, e.g. `http://127.0.0.1:17352`. */
  url: string;
  realm: string;
  /** The connection's manager client (signs the approval and the revocation). */
  manager: ManagerClient;
  /** The connection's secret when it is a global admin token (realm `*` needs it). */
  adminToken: string | null;
  /** Shown to operators in the authorization request, e.g. `Switchboard tap`. */
  clientName: string;
  /** Per step timeout in ms. Default 5000. */
  timeoutMs?: number;
  /** Told the hash of a temporary token before it is approved (so a sweep spares it). */
  onTemporaryToken?: (tokenHash: string) => void;
}

/** Client names of the console's temporary tokens (`AUTHORIZATION_REQUEST.client_name`). */
export const CONSOLE_CLIENT_NAMES = ['Switchboard console tap', 'Switchboard console publisher'];

/**
 * Revokes temporary tokens a previous console run left behind (it exited before revoking
 * them), sparing `active` hashes. Best effort: failures are ignored.
 */
export async function revokeStaleConsoleTokens(
  manager: ManagerClient,
  active: ReadonlySet<string>,
): Promise<number> {
  try {
    const reply = await manager.command({ command: 'get' });
    const tokens = ((reply.settings as { tokens?: unknown } | undefined)?.tokens ?? []) as {
      client_name?: unknown;
      token_hash?: unknown;
    }[];
    let revoked = 0;
    for (const token of tokens) {
      const hash = token.token_hash;
      if (typeof hash !== 'string' || active.has(hash)) continue;
      if (!CONSOLE_CLIENT_NAMES.includes(String(token.client_name))) continue;
      await manager.command({ command: 'revoke_token', token_hash: hash });
      revoked += 1;
    }
    return revoked;
  } catch {
    return 0;
  }
}

/**
 * Connects and authenticates. @throws SwitchboardError `SWB_ERR_BROKER_UNREACHABLE` (no
 * connection or answer in time), `SWB_ERR_UNAUTHORIZED` (the broker refused the socket),
 * `SWB_ERR_VALIDATION` (auth is off and `realm` is not `default`).
 */
export async function openRealmSocket(options: OpenRealmSocketOptions): Promise<RealmSocket> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const { realm, manager } = options;
  const reply = await manager.command({ command: 'get' });
  const realms = toRealmList('', reply.settings);
  const socket = await connect(options.url, timeoutMs);
  let revoke: (() => Promise<unknown>) | null = null;
  const close = async (): Promise<void> => {
    socket.close();
    const pending = revoke;
    revoke = null;
    await pending?.().catch(() => undefined);
  };
  try {
    let access: RealmAccess;
    let tokenHash: string | null = null;
    let admittedBy: string | null = null;
    if (!realms.authEnabled) {
      if (realm !== Protocol.DEFAULT_REALM) {
        throw new SwitchboardError(
          'SWB_ERR_VALIDATION',
          `Authentication is off on this broker: every client is in realm "default", not "${realm}"`,
        );
      }
      access = 'auth-off';
    } else if (realm === Protocol.ADMIN_REALM) {
      if (!options.adminToken) {
        throw new SwitchboardError(
          'SWB_ERR_UNAUTHORIZED',
          'Realm "*" needs the global admin token',
        );
      }
      await authenticate(socket, { token: options.adminToken }, timeoutMs);
      admittedBy = options.adminToken;
      access = 'admin';
    } else if (realms.realms.some((r) => r.name === realm && !r.authRequired)) {
      await authenticate(socket, { realm, role: 'both' }, timeoutMs);
      access = 'open';
    } else {
      const token = randomBytes(32).toString('hex');
      const requested = (await socket
        .timeout(timeoutMs)
        .emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
          realm,
          role: 'both',
          client_id: `switchboard-console-${randomBytes(4).toString('hex')}`,
          client_name: options.clientName,
          client_token: token,
        })
        .catch(() => null)) as { ok?: boolean; request_id?: string; message?: string } | null;
      if (!requested?.ok || !requested.request_id) {
        throw new SwitchboardError(
          'SWB_ERR_UNAUTHORIZED',
          `The broker refused a console token for realm "${realm}": ${requested?.message ?? 'no answer'}`,
        );
      }
      tokenHash = createHash('sha256').update(token, 'utf8').digest('hex');
      options.onTemporaryToken?.(tokenHash);
      await manager.decide(requested.request_id, true, 'both', 'console tap/publisher');
      revoke = () => manager.command({ command: 'revoke_token', token });
      await authenticate(socket, { token, realm }, timeoutMs);
      admittedBy = token;
      access = 'temporary';
    }
    return { socket, realm, access, tokenHash, token: admittedBy, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function connect(url: string, timeoutMs: number): Promise<Socket> {
  const base = new URL(url);
  const socket = io(base.origin, {
    path: `${base.pathname.replace(/\/+$/, '')}/socket.io`,
    transports: ['websocket'],
    forceNew: true,
    // A tap that lost its broker stops and says so; it does not silently resubscribe.
    reconnection: false,
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('timeout')), timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      socket.close();
      reject(
        new SwitchboardError(
          'SWB_ERR_BROKER_UNREACHABLE',
          `Cannot connect to ${url}: ${error.message}`,
        ),
      );
    };
    socket.once('connect_error', fail);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('connect_error', fail);
      resolve(socket);
    });
  });
}

function authenticate(socket: Socket, payload: object, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error: SwitchboardError | null): void => {
      clearTimeout(timer);
      socket.off(ServerEvent.AUTH_OK, ok);
      socket.off(ServerEvent.AUTH_FAIL, refused);
      if (error) reject(error);
      else resolve();
    };
    const ok = (): void => done(null);
    const refused = (reply: { code?: number; message?: string }): void =>
      done(
        new SwitchboardError(
          'SWB_ERR_UNAUTHORIZED',
          `The broker refused the console's client (${reply?.code ?? '?'}): ${reply?.message ?? ''}`,
        ),
      );
    const timer = setTimeout(
      () => done(new SwitchboardError('SWB_ERR_BROKER_UNREACHABLE', 'No answer to AUTHENTICATION')),
      timeoutMs,
    );
    socket.on(ServerEvent.AUTH_OK, ok);
    socket.on(ServerEvent.AUTH_FAIL, refused);
    socket.emit(ClientEvent.AUTHENTICATION, payload);
  });
}
