/**
 * `$SYS/<realm>/…` presence topics (issue 14): when an MQTT client of a realm connects or
 * disconnects, the broker publishes, inside that realm only,
 *   - `$SYS/<realm>/new/clients`        payload: the client id (as the client chose it)
 *   - `$SYS/<realm>/disconnect/clients` payload: the client id
 * (aedes' own `$SYS/<broker-id>/new/clients` naming, per realm; `<realm>` is
 * `encodeURIComponent(realm)`). QoS 0, not retained. Like every `$` topic they are never matched
 * by a filter starting with a wildcard (`#`, `+/…`): subscribe to `$SYS/#` or
 * `$SYS/<realm>/+/clients` (realm-topics.ts). Other realms never see them.
 */
import type { Aedes, Client } from 'aedes';
import type { Logger } from '../logging/logger';
import type { MqttAuth } from './mqtt-auth';
import { scopeTopic } from './realm-topics';

/** The client-visible presence topic of `realm` for `kind`. */
export function presenceTopic(realm: string, kind: 'new' | 'disconnect'): string {
  return `$SYS/${encodeURIComponent(realm)}/${kind}/clients`;
}

/** Publishes presence for `aedes`' clients; returns the function that stops it. */
export function publishPresence(aedes: Aedes, auth: MqttAuth, logger: Logger): () => void {
  const announce = (client: Client, kind: 'new' | 'disconnect') => {
    const identity = auth.identity(client);
    if (!identity) return;
    aedes.publish(
      {
        cmd: 'publish',
        topic: scopeTopic(identity.realm, presenceTopic(identity.realm, kind)),
        payload: Buffer.from(identity.clientId, 'utf8'),
        qos: 0,
        retain: false,
        dup: false,
      },
      (err) => {
        if (err) logger.debug({ err, realm: identity.realm }, 'MQTT presence not published');
      },
    );
  };
  const connected = (client: Client) => announce(client, 'new');
  const disconnected = (client: Client) => announce(client, 'disconnect');
  aedes.on('client', connected);
  aedes.on('clientDisconnect', disconnected);
  return () => {
    aedes.off('client', connected);
    aedes.off('clientDisconnect', disconnected);
  };
}
