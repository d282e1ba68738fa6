import { describe, expect, it } from 'vitest';
import { publishReach } from '../../electron/services/publish-reach';
import type { ClientList } from '../../shared/console-api-operations';

/** A broker that accepted the message but never answers the follow-up questions. */
const silent = <T>(): Promise<T> => new Promise<T>(() => undefined);

describe('publishReach on a slow broker (trial finding 23)', () => {
  it('gives up on the parts the broker does not tell in time instead of holding the result', async () => {
    const reach = await publishReach(
      {
        manager: { command: () => silent() },
        listClients: () => silent<ClientList>(),
        waitMs: 20,
      },
      'orders',
      'order/created',
    );
    expect(reach).toEqual({ subscribers: null, realmConfigured: null });
  });

  it('keeps the part that did arrive when only the other one is late', async () => {
    const reach = await publishReach(
      {
        manager: { command: () => silent() },
        listClients: async (): Promise<ClientList> => ({
          connectionId: 'c',
          realms: [],
          fetchedAt: 0,
        }),
        waitMs: 200,
      },
      'orders',
      'order/created',
    );
    expect(reach).toEqual({ subscribers: 0, realmConfigured: null });
  });
});
