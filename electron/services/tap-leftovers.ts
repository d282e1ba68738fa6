/**
 * What a live tap leaves on a broker, and its removal (docs/console.md "Live tap").
 *
 * The protocol has no way for a client to deregister: `UNSUBSCRIBE` removes the subscription
 * (`spec/protocol-core.md` Note 3.4), a disconnect keeps the consumer registered (§15), and a
 * guaranteed message is queued even for an offline subscriber that is not durable (§9). So a
 * tap's consumer is removed with `remove_consumer` (Switchboard extension, docs/management.md)
 * once the tap has stopped; and a console that was killed with taps running leaves them
 * registered (a broker that outlived it) or queued (stored copies survive a restart), which the
 * next console removes when it first taps that broker or, for the local broker, when it comes up.
 */
import type { ClientList } from '../../shared/console-api-operations';
import type { SwitchboardError } from '../../shared/error-catalogue';
import type { ManagerClient } from './manager-client';

/** Prefix of every tap consumer's name (`switchboard-tap-<12 hex>`, tap-session.ts). */
export const TAP_CONSUMER_PREFIX = 'switchboard-tap-';

/** How long a removal waits for the broker to take the consumer offline, ms. */
const OFFLINE_WAIT_MS = 3_000;
const RETRY_MS = 100;

/**
 * `remove_consumer {realm, consumer}`; a consumer still online (the broker has not processed the
 * disconnect yet) is retried every 100 ms for up to 3 s. Best effort: resolves false on any
 * failure (an older broker without the command, no admin credential, broker gone) and true when
 * the consumer is gone (removed now, or already). Never rejects.
 */
export async function removeTapConsumer(
  manager: ManagerClient,
  realm: string,
  consumer: string,
): Promise<boolean> {
  const deadline = Date.now() + OFFLINE_WAIT_MS;
  for (;;) {
    try {
      await manager.command({ command: 'remove_consumer', realm, consumer });
      return true;
    } catch (error) {
      const code = (error as SwitchboardError).code;
      if (code === 'SWB_ERR_NOT_FOUND') return true;
      if (code !== 'SWB_ERR_CONFLICT' || Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/** Tap consumers of one realm that no live socket holds: offline registrations and queues. */
export interface TapLeftover {
  realm: string;
  consumer: string;
}

/**
 * The leftovers on a broker: offline `switchboard-tap-…` consumers (`GET /api/clients`) and
 * queues of `switchboard-tap-…` consumer ids (`stats`), except names in `active`.
 */
export async function findTapLeftovers(
  manager: ManagerClient,
  clients: ClientList,
  active: ReadonlySet<string>,
): Promise<TapLeftover[]> {
  const found = new Map<string, TapLeftover>();
  const online = new Set<string>();
  const add = (realm: string, consumer: string): void => {
    if (!consumer.startsWith(TAP_CONSUMER_PREFIX) || active.has(consumer)) return;
    found.set(`${realm}\u0000${consumer}`, { realm, consumer });
  };
  for (const realm of clients.realms) {
    for (const consumer of realm.consumers) {
      if (consumer.online) online.add(`${realm.name}\u0000${consumer.name}`);
      else add(realm.name, consumer.name);
    }
  }
  const reply = await manager.command({ command: 'stats' });
  const realms = ((reply.stats as { realms?: unknown } | undefined)?.realms ?? {}) as Record<
    string,
    { queues?: { consumer_id?: unknown }[] }
  >;
  for (const [realm, stats] of Object.entries(realms)) {
    for (const queue of stats.queues ?? []) {
      const id = queue.consumer_id;
      if (typeof id === 'string' && !online.has(`${realm}\u0000${id}`)) add(realm, id);
    }
  }
  return [...found.values()];
}

/**
 * Removes every leftover tap (see `findTapLeftovers`); resolves with how many were removed.
 * Best effort: a broker that cannot list or remove yields 0.
 */
export async function removeTapLeftovers(
  manager: ManagerClient,
  listClients: () => Promise<ClientList>,
  active: ReadonlySet<string>,
): Promise<number> {
  try {
    const leftovers = await findTapLeftovers(manager, await listClients(), active);
    let removed = 0;
    for (const { realm, consumer } of leftovers) {
      if (await removeTapConsumer(manager, realm, consumer)) removed += 1;
    }
    return removed;
  } catch {
    return 0;
  }
}
