/**
 * Ending an MQTT client's session from the broker side: credentials revoked, expired (a JWT's
 * `exp`) or rotated, realm removed. 0x87 "Not authorized" is the one DISCONNECT code of MQTT 5
 * that says the client's credentials no longer authorize it (0x8C "Bad authentication method"
 * is about the AUTH exchange's method, which Switchboard does not use); the Reason String says
 * which case it is, so a client can tell an expired token (renew it) from a revoked one.
 */
import type { Client } from 'aedes';

/** MQTT 5 DISCONNECT reason code 0x87 "Not authorized" (OASIS MQTT 5.0 §3.14.2.1). */
const NOT_AUTHORIZED = 0x87;

/**
 * Ends `client`'s connection because its credentials went away: an MQTT 5 client is told why
 * (DISCONNECT 0x87 "Not authorized" with `reason` as its Reason String); a 3.1.1 one, which has
 * no server DISCONNECT, is closed.
 */
export function endSession(client: Client, reason: string): void {
  client.disconnect({ reasonCode: NOT_AUTHORIZED, properties: { reasonString: reason } });
}

/** Forgets a live client's will, so that closing it publishes nothing (aedes reads `will`). */
export function dropWill(client: Client): void {
  (client as unknown as { will: unknown }).will = null;
}
