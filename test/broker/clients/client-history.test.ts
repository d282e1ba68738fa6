/**
 * The bounds of the client records (broker/clients/client-history.ts, issue 27): the history
 * ring per connection, folded repeats, and the count and age limits on closed connections.
 */
import { describe, expect, it } from 'vitest';
import { ClientHistory } from '../../../broker/clients/client-history';
import { ClientEventKind } from '../../../shared/client-detail';

const base = { protocol: 'socket.io' as const, transport: 'websocket', ip: '192.0.2.1' };

describe('ClientHistory bounds', () => {
  it('keeps the last entries of a connection and folds repeated limit hits', () => {
    const history = new ClientHistory(Date.now, {
      historySize: 5,
      maxClosed: 10,
      closedTtlMs: 1e9,
    });
    const r = history.open({ ...base, clientId: 'a', realm: 'fleet' });
    for (let i = 0; i < 4; i++)
      history.event(r, ClientEventKind.RATE_LIMITED, 'messages_per_second');
    expect(r.events.map((e) => [e.kind, e.count])).toEqual([
      ['connect', undefined],
      ['rate_limited', 4],
    ]);
    for (let i = 0; i < 10; i++) history.event(r, ClientEventKind.UPGRADE, `try ${i}`);
    expect(r.events).toHaveLength(5);
    expect(r.events.at(-1)).toMatchObject({ kind: 'upgrade', detail: 'try 9' });
  });

  it('forgets closed connections past the count and past the age', () => {
    let now = 1_000;
    const history = new ClientHistory(() => now, {
      historySize: 50,
      maxClosed: 3,
      closedTtlMs: 60_000,
    });
    for (let i = 0; i < 5; i++) {
      history.ended(
        history.open({ ...base, clientId: `c${i}`, realm: 'fleet' }),
        'transport close',
      );
    }
    expect(history.closedCount).toBe(3);
    expect(history.find('fleet', 'c0')).toBeUndefined();
    expect(history.find('fleet', 'c4')).toMatchObject({ closeReason: 'transport close' });
    const live = history.open({ ...base, clientId: 'live', realm: 'default' });
    history.admitted(live, 'fleet', 'producer', 'token');
    expect(history.find('default', 'live')).toBeUndefined();
    expect(history.find('fleet', 'live')).toBe(live);
    now += 60_001;
    expect(history.closedCount).toBe(0);
    expect(history.find('fleet', 'live')).toBe(live);
  });

  it('says when a client id comes back after a force close (newcomer trial)', () => {
    let now = 1_000;
    const history = new ClientHistory(() => now);
    const mqtt = { protocol: 'mqtt' as const, transport: 'tcp', ip: '192.0.2.9' };
    const first = history.open({ ...mqtt, clientId: 'dev', realm: 'fleet' });
    history.admitted(first, 'fleet', 'both', 'token');
    expect(first.events.at(-1)?.detail).toBe('both via token');
    history.event(first, ClientEventKind.CLOSED_BY_MANAGER, 'admin');
    history.ended(first, 'closed by admin');
    now = 2_000;
    const again = history.open({ ...mqtt, clientId: 'dev', realm: 'fleet' });
    history.admitted(again, 'fleet', 'both', 'token');
    expect(again.events.at(-1)?.detail).toBe(
      `both via token; its previous connection was closed by admin at ${new Date(1_000).toISOString()}`,
    );
    // Another client id, or another realm, is not told.
    const other = history.open({ ...mqtt, clientId: 'dev-2', realm: 'fleet' });
    history.admitted(other, 'fleet', 'both', 'token');
    expect(other.events.at(-1)?.detail).toBe('both via token');
  });
});
