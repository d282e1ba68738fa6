/**
 * `client_detail` and `close_client` (Switchboard extension, issue 27; docs/management.md
 * "Client detail and control"): one connection's detail and event history, and closing that
 * one connection. Both are A/R: a global admin, or the manager key of the client's realm (the
 * proof verifier grants a realm scope only for the body's own `realm`, §6.5).
 *
 * `client_id` is the socket.io connection id (the `socket_id` of `GET /api/clients`) or the MQTT
 * client id as the client chose it. Closing ends the transport only: registrations, durable
 * queues and MQTT persistent sessions stay (§15), so a client that reconnects carries on. With
 * `block_seconds` an MQTT client id is also refused for that long (`auth/client-bans.ts`): a
 * device that reconnects at once stays out. Revoke its token to keep it out for good.
 */
import { MAX_BLOCK_SECONDS, type ClientBans } from '../auth/client-bans';
import type { Logger } from '../logging/logger';
import { ClientEventKind } from '../../shared/client-detail';
import type { ClientHistory, ClientRecord } from '../clients/client-history';
import {
  CommandError,
  pick,
  realmParam,
  type CommandBody,
  type ManagerScope,
} from './command-types';

/** What the two commands need from the broker. */
export interface ClientServices {
  readonly history: ClientHistory;
  /** Blocks of MQTT client ids (`block_seconds`); absent: `block_seconds` gets 501. */
  readonly bans?: ClientBans;
}

/** Longest client id accepted (UTF-16 code units; MQTT 5 allows 65,535 bytes, ids are short). */
const MAX_CLIENT_ID = 1_024;

function target(
  services: ClientServices,
  body: CommandBody,
  scope: ManagerScope,
): { realm: string; clientId: string; record: ClientRecord } {
  const realm = scope.kind === 'realm' ? scope.realm : realmParam(body);
  if (scope.kind === 'realm' && body.realm !== undefined && body.realm !== realm) {
    throw new CommandError(403, 'realm manager keys act on their own realm only');
  }
  const clientId = pick(body, 'client_id', 'id');
  if (typeof clientId !== 'string' || clientId === '' || clientId.length > MAX_CLIENT_ID) {
    throw new CommandError(400, 'client_id is required');
  }
  const record = services.history.find(realm, clientId);
  if (!record) throw new CommandError(404, 'client not found');
  return { realm, clientId, record };
}

/**
 * `{realm, client_id}` → `{ok, realm, client_id, client: ClientDetail}` (shared/client-detail.ts),
 * for a live connection or one that ended recently (the last 200, for an hour).
 * @throws CommandError 400 `realm is required` / `client_id is required`; 404 `client not found`.
 */
export function clientDetail(
  services: ClientServices,
  body: CommandBody,
  scope: ManagerScope,
): { ok: true } & Record<string, unknown> {
  const { realm, clientId, record } = target(services, body, scope);
  return { ok: true, realm, client_id: clientId, client: services.history.detail(record) };
}

/**
 * `{realm, client_id, block_seconds?}` → `{ok, realm, client_id, protocol, connected: true,
 * blocked_until?}` once the connection is told to close: socket.io `disconnect(true)`; MQTT 5
 * DISCONNECT 0x98 "Administrative action" then close; MQTT 3.1.1 close (no server DISCONNECT).
 * An MQTT client id names whichever connection holds it now, so a device that reconnected since
 * the operator looked is still the one closed. With `block_seconds` and nothing connected under
 * the id (a device between two attempts of a reconnect loop), the block is still installed and
 * the reply is `{ok, realm, client_id, protocol, connected: false, blocked_until, message}`:
 * the block is what stops the loop. Logged at info with who asked (the audit line).
 * @throws CommandError 400 as `client_detail`; 404 `client not found`; 409 `client is not
 *   connected` (only a recently closed record is left, and no `block_seconds`).
 */
export function closeClient(
  services: ClientServices,
  body: CommandBody,
  scope: ManagerScope,
  logger: Logger,
): { ok: true } & Record<string, unknown> {
  const { realm, clientId, record } = target(services, body, scope);
  const close = record.closedAt === null ? record.close : null;
  const block = blockSeconds(services, body, record.protocol);
  if (!close && block === null) throw new CommandError(409, 'client is not connected');
  const by = scope.kind === 'admin' ? 'admin' : `manager of realm ${scope.realm}`;
  // The block goes in before the close, so the device's very next CONNECT is refused.
  const blockedUntil =
    block === null ? null : new Date(services.bans!.block(realm, clientId, block)).toISOString();
  logger.info(
    {
      realm,
      client: clientId,
      protocol: record.protocol,
      by: scope.kind,
      connected: close !== null,
      blocked_until: blockedUntil,
    },
    close ? 'client closed by a manager' : 'client id blocked by a manager (not connected)',
  );
  const reply = {
    ok: true as const,
    realm,
    client_id: clientId,
    protocol: record.protocol,
    connected: close !== null,
    ...(blockedUntil === null ? {} : { blocked_until: blockedUntil }),
  };
  if (!close) {
    return {
      ...reply,
      message: `client was not connected: nothing closed; blocked until ${blockedUntil}`,
    };
  }
  services.history.event(record, ClientEventKind.CLOSED_BY_MANAGER, by);
  record.closeReason = `closed by ${by}`;
  close(by);
  return reply;
}

/** `block_seconds`: 1–86,400, MQTT clients only (a socket.io id is new at every connect). */
function blockSeconds(
  services: ClientServices,
  body: CommandBody,
  protocol: string,
): number | null {
  const raw = pick(body, 'block_seconds');
  if (raw === undefined || raw === null || raw === 0) return null;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_BLOCK_SECONDS) {
    throw new CommandError(400, `block_seconds must be an integer from 1 to ${MAX_BLOCK_SECONDS}`);
  }
  if (protocol !== 'mqtt') {
    throw new CommandError(
      400,
      'block_seconds applies to MQTT clients: revoke the token of a socket.io client instead',
    );
  }
  if (!services.bans) throw new CommandError(501, 'block_seconds is not available');
  return raw;
}
