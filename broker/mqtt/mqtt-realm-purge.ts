/**
 * Disposal of a realm on the MQTT side (`remove_realm` or an expired ephemeral realm,
 * `spec/protocol-admin.md` §9.4): the realm's MQTT clients are closed without publishing their
 * wills, and all of its MQTT state — persistent sessions' subscriptions, queued and in-flight
 * packets, QoS 2 receipts, wills and retained messages — is deleted from aedes' working copy
 * (`StoredPersistence.purgeRealm`) and from the store, so that a realm re-created later with
 * the same name starts empty.
 */
import type { Aedes, Client } from 'aedes';
import type { Logger } from '../logging/logger';
import type { MqttStateStore } from '../storage/mqtt-state';
import type { MqttAuth } from './mqtt-auth';
import { dropWill, endSession } from './end-session';
import { realmPrefixes } from './realm-topics';

/**
 * Closes every MQTT client of `realm` without its will (the realm it would speak in is gone);
 * returns how many. The persisted will is deleted by the purge that follows.
 */
export function closeRealmClients(
  aedes: Aedes,
  auth: MqttAuth,
  realm: string,
  logger: Logger,
): number {
  const clients = (aedes as unknown as { clients: Record<string, Client> }).clients;
  let closed = 0;
  for (const client of Object.values(clients)) {
    const identity = auth.identity(client);
    if (identity?.realm !== realm) continue;
    dropWill(client);
    endSession(client, 'realm removed');
    closed++;
    logger.info(
      { mqttClient: identity.clientId, realm, reason: 'realm removed' },
      'MQTT session ended',
    );
  }
  return closed;
}

/**
 * Deletes `realm`'s MQTT state from the store alone (the listener is not running: the next
 * `listen()` loads what is left). Resolves once committed; no-op without a store.
 */
export async function purgeStoredRealm(
  state: MqttStateStore | undefined,
  realm: string,
): Promise<void> {
  await state?.write({ op: 'purgePrefixes', prefixes: realmPrefixes(realm) });
}
