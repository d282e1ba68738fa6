/**
 * Who a test message could reach (trial finding 23: a publish to a realm nobody is in read like
 * any other): right after the publish, the online subscribers of its event or topic in its
 * realm, from the broker's registrations (`GET /api/clients`, topic-subscribers.ts), and
 * whether the broker's settings name the realm (signed `get`, docs/management.md). Each part is
 * null when the broker does not tell this connection; never rejects.
 */
import type { ClientList } from '../../shared/console-api-operations';
import { Protocol } from '../../shared/protocol-events';
import type { ManagerClient } from './manager-client';
import { toRealmList } from './manager-pool';
import { subscriberCounter } from './topic-subscribers';

export interface PublishReach {
  subscribers: number | null;
  realmConfigured: boolean | null;
}

export interface PublishReachDeps {
  manager: Pick<ManagerClient, 'command'>;
  listClients?: () => Promise<ClientList>;
}

/**
 * The reach of a message on `topic` (a tyo-mq event or an MQTT topic name) in `realm`;
 * `producer`: the tyo-mq `from` (exact subscriptions to another producer do not count).
 */
export async function publishReach(
  deps: PublishReachDeps,
  realm: string,
  topic: string,
  producer?: string,
): Promise<PublishReach> {
  const subscribers = async (): Promise<number | null> => {
    if (!deps.listClients) return null;
    const list = await deps.listClients();
    // A realm without a registered client is not listed: nobody there subscribes.
    return subscriberCounter(list, realm, producer)?.(topic) ?? 0;
  };
  const configured = async (): Promise<boolean | null> => {
    if (realm === Protocol.ADMIN_REALM) return true;
    const reply = await deps.manager.command({ command: 'get' });
    const realms = toRealmList('', reply.settings);
    if (!realms.authEnabled) return realm === Protocol.DEFAULT_REALM;
    return realms.realms.some((r) => r.name === realm);
  };
  const [count, known] = await Promise.all([
    subscribers().catch(() => null),
    configured().catch(() => null),
  ]);
  return { subscribers: count, realmConfigured: known };
}
