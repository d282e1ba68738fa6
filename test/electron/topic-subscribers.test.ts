/**
 * Subscriber counts of the Topic tree (electron/services/topic-subscribers.ts): from a
 * `GET /api/clients` listing, each client that would get a message on a topic counts once —
 * topic patterns, exact events without case, a producer's TM-ALL, MQTT filters — and offline
 * consumers and the console's own taps do not count.
 */
import { describe, expect, it } from 'vitest';
import { subscriberCounter } from '../../electron/services/topic-subscribers';
import type { ClientList } from '../../shared/console-api-operations';

const sub = (key: string, producer: string, pattern: string | null = null) => ({
  key,
  producer,
  mode: pattern === null ? null : ('topic' as const),
  pattern,
  group: null,
  durable: false,
  ack_required: false,
  ack_timeout_ms: 30_000,
  consumer_id: 'x',
  backlog: 0,
});
const consumer = (name: string, online: boolean, subscriptions: ReturnType<typeof sub>[]) => ({
  name,
  id: name,
  online,
  offline_since: online ? null : 1,
  subscriptions,
});

const list: ClientList = {
  connectionId: 'local',
  fetchedAt: 0,
  realms: [
    {
      name: 'plant',
      producers: [],
      consumers: [
        // Two matching subscriptions of one consumer: counted once.
        consumer('dash', true, [
          sub('tyo-mq-all-line/+/state', 'TYO-MQ-ALL', 'line/+/state'),
          sub('tyo-mq-all-line/#', 'TYO-MQ-ALL', 'line/#'),
        ]),
        consumer('exact', true, [sub('plc-line/1/state', 'PLC')]),
        consumer('everything-from-plc', true, [sub('plc-TM-ALL', 'PLC')]),
        consumer('gone', false, [sub('tyo-mq-all-#', 'TYO-MQ-ALL', '#')]),
        consumer('switchboard-tap-abc', true, [sub('tyo-mq-all-#', 'TYO-MQ-ALL', '#')]),
      ],
      mqtt: [
        {
          client_id: 'device-1',
          username: 'plant',
          role: 'both',
          authenticated: true,
          transport: 'mqtt',
          clean: true,
          connected_since: 0,
          subscriptions: [{ filter: 'line/1/#', qos: 1 }],
        },
      ],
    },
  ],
};

describe('topic tree subscriber counts', () => {
  it('counts each matching client once', () => {
    const count = subscriberCounter(list, 'plant')!;
    expect(count('line/1/state')).toBe(4); // dash, exact, TM-ALL, device-1
    expect(count('LINE/1/STATE')).toBe(2); // exact (no case) and TM-ALL; patterns keep case
    expect(count('line/2/state')).toBe(2); // dash, TM-ALL
    expect(count('office/lights')).toBe(1); // TM-ALL only
  });

  it('is null for a realm the listing does not have', () => {
    expect(subscriberCounter(list, 'other')).toBeNull();
  });
});
