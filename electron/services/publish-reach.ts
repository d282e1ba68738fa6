/**
 * Who a test message could reach (trial finding 23: a publish to a realm nobody is in read like
 * any other): right after the publish, the online subscribers of its event or topic in its
 * realm, from the broker's registrations (`GET /api/clients`, topic-subscribers.ts), and
 * whether the broker's settings name the realm (signed `get`, docs/management.md). Each part is
 * null when the broker does not tell this connection, or does not tell within
 * {@link REACH_WAIT_MS} (the message is already confirmed; a slow remote broker must not hold
 * the publisher's result back, trial finding 23); never rejects.
 */
import type { ClientList } from '../../shared/console-api-operations';
import { Protocol } from '../../shared/protocol-events';
import type { ManagerClient } from './manager-client';
import { toRealmList } from './manager-pool';
import { subscriberCounter } from './topic-subscribers';

/** How long a publish result waits for its reach, in ms; past it the parts are null. */
export const REACH_WAIT_MS = 1_500;

export interface PublishReach {
  subscribers: number | null;
  realmConfigured: boolean | null;
}

export interface PublishReachDeps {
  manager: Pick<ManagerClient, 'command'>;
  listClients?: () => Promise<ClientList>;
  /** Default {@link REACH_WAIT_MS}. */
  waitMs?: number;
}

/** `work`'s value, or null when it rejects or takes longer than `ms`. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([work.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
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
  const wait = deps.waitMs ?? REACH_WAIT_MS;
  const [count, known] = await Promise.all([
    within(subscribers(), wait),
    within(configured(), wait),
  ]);
  return { subscribers: count, realmConfigured: known };
}
