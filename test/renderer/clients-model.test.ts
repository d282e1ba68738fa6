/**
 * The Clients view's model (issue 22, item 13): offline leftovers without an id of their own
 * are hidden behind a toggle (never one with subscribers or a durable subscription); the
 * console's own taps and test publisher are labelled; socket ids are not shown; MQTT
 * subscribers of a producer's topics are counted; the console's own connections are named; a
 * realm with only SSE streams is kept (issue 28).
 */
import { describe, expect, it } from 'vitest';
import type { ClientList } from '../../shared/console-api-operations';
import type { ClientConsumer, ClientProducer } from '../../shared/http-api';
import {
  buildClientsModel,
  consoleNote,
  producerSubscribersText,
} from '../../renderer/src/views/clients/clients-model';

const producer = (over: Partial<ClientProducer>): ClientProducer => ({
  name: 'p',
  id: 'p',
  online: true,
  offline_since: null,
  placeholder: false,
  subscribers: 0,
  ...over,
});
const consumer = (over: Partial<ClientConsumer>): ClientConsumer => ({
  name: 'c',
  id: 'c',
  online: true,
  offline_since: null,
  subscriptions: [],
  ...over,
});
const durable = {
  key: 'fleet-job',
  producer: 'fleet',
  mode: null,
  pattern: null,
  group: null,
  durable: true,
  ack_required: false,
  ack_timeout_ms: 30_000,
  consumer_id: 'c',
  backlog: 0,
};

const list: ClientList = {
  connectionId: 'local',
  fetchedAt: 0,
  console: {
    management: true,
    taps: [{ realm: 'fleet', consumer: 'switchboard-tap-0123456789ab' }],
    publishers: [{ realm: 'fleet', name: 'switchboard-console' }],
  },
  realms: [
    {
      name: 'fleet',
      producers: [
        producer({ name: 'truck-7', id: 'Xy9_abcDEF0123456789', id_from_socket: true }),
        producer({
          name: 'old-anon',
          id: 'Qq9_abcDEF0123456789',
          id_from_socket: true,
          online: false,
        }),
        producer({ name: 'kept-offline', id: 'kept-1', online: false }),
        producer({
          name: 'switchboard-console',
          id: 'Zz9_abcDEF0123456789',
          id_from_socket: true,
          online: false,
          subscribers: 1,
        }),
      ],
      consumers: [
        consumer({ name: 'switchboard-tap-0123456789ab', id_from_socket: true }),
        consumer({ name: 'gone', id: 'Aa9_abcDEF0123456789', id_from_socket: true, online: false }),
        consumer({
          name: 'durable-anon',
          id: 'Bb9_abcDEF0123456789',
          id_from_socket: true,
          online: false,
          subscriptions: [durable],
        }),
      ],
    },
  ],
};

describe('clients model', () => {
  it('hides offline leftovers by default and labels the console', () => {
    const model = buildClientsModel(list, { onlineOnly: false, showLeftovers: false });
    const realm = model.realms[0]!;
    expect(realm.producers.map((r) => r.producer.name)).toEqual(['truck-7', 'kept-offline']);
    expect(realm.consumers.map((r) => r.consumer.name)).toEqual([
      'switchboard-tap-0123456789ab',
      'durable-anon',
    ]);
    expect(model.leftovers).toBe(3);
    // A socket id is not shown as an id; a client's own id is.
    expect(realm.producers[0]!.id).toBeNull();
    expect(realm.producers[1]!.id).toBe('kept-1');
    expect(realm.consumers[0]!.label).toBe("this console's live tap");

    const all = buildClientsModel(list, { onlineOnly: false, showLeftovers: true });
    const mine = all.realms[0]!.producers.find((r) => r.producer.name === 'switchboard-console');
    expect(mine?.label).toBe("this console's test publisher");
    expect(all.leftovers).toBe(0);
    expect(all.realms[0]!.producers).toHaveLength(4);
  });

  it('counts MQTT subscribers of a producer and names the console connections', () => {
    expect(producerSubscribersText(producer({ subscribers: 2 }))).toBe('2 subscribers');
    expect(
      producerSubscribersText(
        producer({ subscribers: 0, mqtt_subscribers: 3, events: ['trucks/7/speed'] }),
      ),
    ).toBe('0 subscribers · 3 MQTT subscribers on its topics (trucks/7/speed)');
    expect(consoleNote(list.console)).toBe(
      'This console holds 2 connections to this broker: its management connection (signed ' +
        "commands) and 1 live tap. The broker's connection count includes them; they are not " +
        'your clients.',
    );
    expect(consoleNote({ management: false, taps: [], publishers: [] })).toBeNull();
  });

  it('keeps a realm whose only clients are SSE streams, with its streams', () => {
    const sse = [{ event: 'notify', opened_at: 1_000, role: 'consumer' }];
    const model = buildClientsModel(
      {
        connectionId: 'local',
        fetchedAt: 0,
        realms: [{ name: 'web', producers: [], consumers: [], sse }],
      },
      { onlineOnly: true, showLeftovers: false },
    );
    expect(model.realms).toEqual([{ name: 'web', producers: [], consumers: [], mqtt: [], sse }]);
  });
});
