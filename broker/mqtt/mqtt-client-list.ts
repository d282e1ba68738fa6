/**
 * The MQTT part of `GET /api/clients` (issue 14, docs/http-api.md): one entry per connected MQTT
 * client, with the client id and filters as the client sees them (the internal realm scope of
 * realm-topics.ts removed) and the QoS aedes granted each filter.
 */
import type { Client } from 'aedes';
import type { ClientMqtt, ClientMqttSubscription } from '../../shared/http-api';
import type { MqttIdentity } from './mqtt-identity';
import { unscopeTopic } from './realm-topics';

/** What the listener remembers of a client beyond its identity. */
export interface MqttClientFacts {
  /** CONNECT username as sent, null when none. */
  username: string | null;
  /** When the client was admitted, epoch ms. */
  connectedAt: number;
}

/**
 * The listing entry of `client`. Reads aedes' live `client.subscriptions` (keyed by internal
 * filter; restored persistent subscriptions included); filters of another realm cannot be
 * there (authorizeSubscribe refuses them) and are skipped all the same. Sorted by filter.
 */
export function describeMqttClient(
  client: Client,
  identity: MqttIdentity,
  facts: MqttClientFacts,
): ClientMqtt {
  const subscriptions: ClientMqttSubscription[] = [];
  const subs = (client as unknown as { subscriptions?: Record<string, { qos: number }> })
    .subscriptions;
  for (const [internal, sub] of Object.entries(subs ?? {})) {
    const scoped = unscopeTopic(internal);
    if (!scoped || scoped.realm !== identity.realm) continue;
    subscriptions.push({ filter: scoped.topic, qos: sub.qos });
  }
  subscriptions.sort((a, b) => (a.filter < b.filter ? -1 : a.filter > b.filter ? 1 : 0));
  return {
    client_id: identity.clientId,
    protocol_version: client.version ?? 4,
    username: facts.username,
    role: identity.role,
    authenticated: identity.authenticated,
    transport: 'mqtt',
    clean: client.clean,
    connected_since: facts.connectedAt,
    subscriptions,
  };
}
