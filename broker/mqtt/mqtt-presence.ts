/**
 * `$SYS/<realm>/…` presence topics (issue 14): when an MQTT client of a realm connects or
 * disconnects, or a tyo-mq (socket.io) producer or consumer name of the realm comes online or
 * goes offline, the broker publishes, inside that realm only,
 *   - `$SYS/<realm>/new/clients`        payload: the client id (as the client chose it), or
 *                                       the producer / consumer name (never a token)
 *   - `$SYS/<realm>/disconnect/clients` payload: the same
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

/** Publishes that `who` (a client id or a producer / consumer name) came or went in `realm`. */
export function announcePresence(
  aedes: Aedes,
  realm: string,
  who: string,
  kind: 'new' | 'disconnect',
  logger: Logger,
): void {
  aedes.publish(
    {
      cmd: 'publish',
      topic: scopeTopic(realm, presenceTopic(realm, kind)),
      payload: Buffer.from(who, 'utf8'),
      qos: 0,
      retain: false,
      dup: false,
    },
    (err) => {
      if (err) logger.debug({ err, realm }, 'presence not published');
    },
  );
}

/** Publishes presence for `aedes`' clients; returns the function that stops it. */
export function publishPresence(aedes: Aedes, auth: MqttAuth, logger: Logger): () => void {
  const announce = (client: Client, kind: 'new' | 'disconnect') => {
    const identity = auth.identity(client);
    if (identity) announcePresence(aedes, identity.realm, identity.clientId, kind, logger);
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
