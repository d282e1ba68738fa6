/**
 * Messages in / out per second of each connection in the Clients list (issue 27), from
 * successive `GET /api/clients` readings of the broker's per-connection counters
 * (`messages_in` / `messages_out`, docs/http-api.md "Clients"), measured as every windowed rate
 * of the host (windowed-rates.ts). A producer and a consumer bound to one socket are one
 * connection: read once. A broker without the counters (older Switchboard, plain tyo-mq) gives
 * no rates, so the list shows none.
 */
import type { ClientList, ClientRate } from '../../shared/console-api-operations';
import { WindowedRates } from './windowed-rates';

/** Connections remembered per broker connection (the least recently read go first). */
export const MAX_TRACKED_CLIENTS = 20_000;

interface Counted {
  messages_in?: number;
  messages_out?: number;
}

/** The rates of one broker connection's clients, from listing to listing. */
export class ClientRateTracker {
  private readonly windowed = new WindowedRates<'in' | 'out'>(MAX_TRACKED_CLIENTS);

  /**
   * Records every counted connection of `realms` read at `at` (epoch ms) and returns the rates
   * of those read before (a connection's first reading has none), in listing order.
   */
  rates(realms: ClientList['realms'], at: number): ClientRate[] {
    const out: ClientRate[] = [];
    const seen = new Set<string>();
    const read = (
      realm: string,
      protocol: ClientRate['protocol'],
      clientId: string | null | undefined,
      c: Counted,
    ): void => {
      if (!clientId || c.messages_in === undefined || c.messages_out === undefined) return;
      const key = `${realm}\u0000${protocol}\u0000${clientId}`;
      if (seen.has(key)) return;
      seen.add(key);
      const r = this.windowed.rates(key, { in: c.messages_in, out: c.messages_out }, at);
      if (r) out.push({ realm, protocol, clientId, inPerSecond: r.in, outPerSecond: r.out });
    };
    for (const realm of realms) {
      for (const p of realm.producers) read(realm.name, 'socket.io', p.socket_id, p);
      for (const c of realm.consumers) read(realm.name, 'socket.io', c.socket_id, c);
      for (const m of realm.mqtt ?? []) read(realm.name, 'mqtt', m.client_id, m);
    }
    return out;
  }
}
