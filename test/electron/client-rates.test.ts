/**
 * The Clients list's per-connection rates in the console host (client-rates.ts over
 * windowed-rates.ts, issue 27): messages in / out per second from two `GET /api/clients`
 * readings of a connection's counters; a producer and consumer on one socket read once; none
 * for a first reading, an offline registration or a broker without counters; a counter going
 * down (a new connection reusing the id, a restarted broker) starts again.
 */
import { describe, expect, it } from 'vitest';
import { ClientRateTracker } from '../../electron/services/client-rates';
import type { ClientList } from '../../shared/console-api-operations';

type Realms = ClientList['realms'];

function listing(fleetIn: number, workerOut: number, deviceIn?: number): Realms {
  const base = { id: null, online: true, offline_since: null };
  return [
    {
      name: 'default',
      producers: [
        {
          ...base,
          name: 'fleet',
          socket_id: 'sock-1',
          placeholder: false,
          subscribers: 1,
          messages_in: fleetIn,
          messages_out: 0,
        },
        // Offline: no socket, no counters.
        {
          ...base,
          name: 'old',
          online: false,
          socket_id: null,
          placeholder: false,
          subscribers: 0,
        },
      ],
      consumers: [
        // Bound to the same socket as `fleet`: the same connection.
        {
          ...base,
          id: 'fleet-c',
          name: 'fleet-c',
          socket_id: 'sock-1',
          subscriptions: [],
          messages_in: fleetIn,
          messages_out: 0,
        },
        {
          ...base,
          id: 'worker',
          name: 'worker',
          socket_id: 'sock-2',
          subscriptions: [],
          messages_in: 2,
          messages_out: workerOut,
        },
      ],
      mqtt: [
        {
          client_id: 'sock-1',
          username: null,
          role: 'both',
          authenticated: false,
          transport: 'mqtt',
          clean: true,
          connected_since: 0,
          subscriptions: [],
          ...(deviceIn === undefined ? {} : { messages_in: deviceIn, messages_out: 0 }),
        },
      ],
    },
  ];
}

describe('client rates', () => {
  it('turns two listings into messages per second for each connection', () => {
    const t = new ClientRateTracker();
    expect(t.rates(listing(10, 5, 0), 1_000)).toEqual([]);
    expect(t.rates(listing(30, 9, 4), 3_000)).toEqual([
      {
        realm: 'default',
        protocol: 'socket.io',
        clientId: 'sock-1',
        inPerSecond: 10,
        outPerSecond: 0,
      },
      {
        realm: 'default',
        protocol: 'socket.io',
        clientId: 'sock-2',
        inPerSecond: 0,
        outPerSecond: 2,
      },
      // Its id equals a socket id: another protocol, another connection.
      { realm: 'default', protocol: 'mqtt', clientId: 'sock-1', inPerSecond: 2, outPerSecond: 0 },
    ]);
  });

  it('gives none without counters, and starts again when a counter goes down', () => {
    const t = new ClientRateTracker();
    t.rates(listing(10, 5), 1_000);
    const second = t.rates(listing(20, 5), 2_000);
    // The MQTT client's broker gave no counters: no rate for it.
    expect(second.map((r) => `${r.protocol} ${r.clientId}`)).toEqual([
      'socket.io sock-1',
      'socket.io sock-2',
    ]);
    // sock-1's counter went down (a new connection reused the id): no rate until the next.
    expect(t.rates(listing(3, 9), 3_000).map((r) => r.clientId)).toEqual(['sock-2']);
    expect(t.rates(listing(7, 9), 5_000)[0]).toMatchObject({ clientId: 'sock-1', inPerSecond: 2 });
  });
});
