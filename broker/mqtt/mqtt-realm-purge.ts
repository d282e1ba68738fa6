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
 * `rename_realm`: closes every MQTT client of `realm` without its will (it would be published
 * under the old name) and resolves once aedes has closed them all (their clean-session state
 * is gone then), or after `timeoutMs`. Resolves with how many were closed.
 */
export async function closeRealmClientsForRename(
  aedes: Aedes,
  auth: MqttAuth,
  realm: string,
  logger: Logger,
  timeoutMs = 2_000,
): Promise<number> {
  const clients = (aedes as unknown as { clients: Record<string, Client> }).clients;
  const closing: Array<Promise<void>> = [];
  for (const client of Object.values(clients)) {
    const identity = auth.identity(client);
    if (identity?.realm !== realm) continue;
    dropWill(client);
    closing.push(
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        timer.unref();
        client.disconnect(
          { reasonCode: 0x8b, properties: { reasonString: 'realm renamed' } },
          () => {
            clearTimeout(timer);
            resolve();
          },
        );
      }),
    );
    logger.info(
      { mqttClient: identity.clientId, realm, reason: 'realm renamed' },
      'MQTT session ended',
    );
  }
  await Promise.all(closing);
  // aedes forgets a closed client and wipes a clean session on the turns after its close.
  await new Promise((resolve) => setImmediate(resolve));
  return closing.length;
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
