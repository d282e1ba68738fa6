/**
 * The live sessions of a realm, for the management commands (issue 22 item 7; docs/management.md
 * "Sessions after a key rotation"): socket.io sockets authenticated into it and MQTT clients
 * connected to it.
 *
 * - `stale(realm)`: how many of them hold a credential that no longer verifies (a rotated or
 *   cleared pre-shared `key` or `manager_key`, session-credential.ts). The broker ends those on
 *   the turn after the change (session-revocation.ts, mqtt-revocation.ts); counted right after a
 *   command commits, this is the number that command ends, for its reply.
 * - `endAll(realm)`: ends every session of the realm now (`end_sessions`): a socket.io client is
 *   told `AUTH_FAIL 401` and its transport closed so it reconnects and authenticates again; an
 *   MQTT client gets DISCONNECT 0x87 (its will dropped). Registrations and durable queues stay.
 */
import type { Client } from 'aedes';
import type { AuthState } from '../auth/auth-state';
import { credentialEnded, type SessionCredential } from '../auth/session-credential';
import { endSocketSession } from '../auth/session-revocation';
import type { Logger } from '../logging/logger';
import { dropWill, endSession } from '../mqtt/end-session';
import type { BrokerSocket } from '../transport/socket-types';

export interface RealmSessions {
  /** Sessions of `realm` whose credential no longer holds (see the header). */
  stale(realm: string): number;
  /** Ends every session of `realm`; returns how many (socket.io and MQTT). */
  endAll(realm: string): number;
}

/** An MQTT client of a realm with the credential it was admitted with. */
export interface MqttSession {
  client: Client;
  credential: SessionCredential | null;
}

export interface RealmSessionsDeps {
  auth: AuthState;
  /** The sockets of the main namespace. */
  sockets(): Iterable<BrokerSocket>;
  /** The MQTT clients of a realm; empty when MQTT is off. */
  mqttClients(realm: string): MqttSession[];
  logger: Logger;
}

/** The Reason String an MQTT client is given by `end_sessions`. */
export const ENDED_BY_MANAGER = 'session ended by a manager';

export function realmSessions(deps: RealmSessionsDeps): RealmSessions {
  const socketsOf = (realm: string): BrokerSocket[] => {
    const out: BrokerSocket[] = [];
    for (const s of deps.sockets()) if (s.data.authenticated && s.data.realm === realm) out.push(s);
    return out;
  };
  return {
    stale(realm) {
      const now = Date.now();
      const ended = (c: SessionCredential | null) => credentialEnded(deps.auth.config, c, now);
      let n = 0;
      for (const s of socketsOf(realm)) if (ended(s.data.credential) !== null) n++;
      for (const m of deps.mqttClients(realm)) if (ended(m.credential) !== null) n++;
      return n;
    },
    endAll(realm) {
      const sockets = socketsOf(realm);
      for (const s of sockets) endSocketSession(s, 'ended by a manager', deps.logger);
      const clients = deps.mqttClients(realm);
      for (const { client } of clients) {
        deps.logger.info({ mqttClient: client.id, realm }, 'MQTT session ended by a manager');
        dropWill(client);
        endSession(client, ENDED_BY_MANAGER);
      }
      return sockets.length + clients.length;
    },
  };
}
