/**
 * One connection's detail and event history (issue 27, Switchboard extension): the reply shape
 * of the signed `client_detail` command (docs/management.md "Client detail and control") and
 * what the console's client panel shows. Secrets never appear: `admitted_by` names the kind of
 * credential only.
 */
import { z } from 'zod';

/** Kinds of history entries, oldest first in `history`. */
export const ClientEventKind = {
  /** The transport connected (socket.io handshake done, or MQTT TCP/WS accepted). */
  CONNECT: 'connect',
  /** Admitted into a realm (`AUTH_OK`, or an MQTT CONNACK 0). */
  AUTH_OK: 'auth_ok',
  /** Refused at authentication (`AUTH_FAIL`, or an MQTT CONNACK refusal); `detail` = reason. */
  AUTH_FAIL: 'auth_fail',
  /** An action refused by a rate limit or quota; `detail` = the §11.3 limit key. */
  RATE_LIMITED: 'rate_limited',
  /** Plain copies dropped for this slow consumer (back-pressure); `count` = copies. */
  DROPPED: 'dropped',
  /** The transport upgraded (socket.io polling → websocket). */
  UPGRADE: 'upgrade',
  /** `close_client` closed it; `detail` = who (admin or the realm's manager). */
  CLOSED_BY_MANAGER: 'closed_by_manager',
  /** The connection ended; `detail` = why (socket.io disconnect reason, MQTT error or close). */
  DISCONNECT: 'disconnect',
} as const;
export type ClientEventKind = (typeof ClientEventKind)[keyof typeof ClientEventKind];

export const ClientEventSchema = z.object({
  /** Epoch ms. */
  at: z.number(),
  kind: z.enum(Object.values(ClientEventKind) as [ClientEventKind, ...ClientEventKind[]]),
  detail: z.string().optional(),
  /** Repeats folded into this entry (consecutive `rate_limited` / `dropped` / `auth_fail` of one reason). */
  count: z.number().int().positive().optional(),
});
export type ClientEvent = z.infer<typeof ClientEventSchema>;

export const ClientDetailSchema = z.object({
  /** socket.io connection (socket) id, or the MQTT client id (without the realm scope). */
  client_id: z.string(),
  protocol: z.enum(['socket.io', 'mqtt']),
  /** socket.io: `polling` / `websocket`; MQTT: `tcp` / `tls` / `ws`. */
  transport: z.string(),
  realm: z.string(),
  /** Client address, behind trusted proxies per `limits.trust_proxy` (client-address.ts). */
  ip: z.string(),
  /** Role granted, null until admitted. */
  role: z.string().nullable(),
  /**
   * What admitted it: `token` (static), `jwt`, `realm-jwt` (signed with the realm's manager
   * key), `external`, `key` (the realm's pre-shared key), `open-realm`, `tokenless-consumer`,
   * `role-declared`, `auth-disabled`, `anonymous` (MQTT without credentials); null until admitted.
   */
  admitted_by: z.string().nullable(),
  /** MQTT: the CONNECT username as sent (never the password). */
  username: z.string().nullable().optional(),
  /** MQTT: CONNECT protocol level (4 = 3.1.1, 5 = 5.0). */
  protocol_version: z.number().int().optional(),
  /** socket.io: the producer and consumer names bound to this connection. */
  names: z.array(z.string()).optional(),
  /** Epoch ms of the connection. */
  connected_since: z.number(),
  online: z.boolean(),
  /** Epoch ms it ended, null while online. */
  disconnected_at: z.number().nullable(),
  disconnect_reason: z.string().nullable(),
  /** Application messages received from / sent to it (socket.io events; MQTT PUBLISH). */
  messages_in: z.number().int().nonnegative(),
  messages_out: z.number().int().nonnegative(),
  /** Bytes received / sent (socket.io: engine.io message payloads; MQTT: on the wire). */
  bytes_in: z.number().int().nonnegative(),
  bytes_out: z.number().int().nonnegative(),
  /** The last entries, oldest first (at most 50). */
  history: z.array(ClientEventSchema),
});
export type ClientDetail = z.infer<typeof ClientDetailSchema>;
