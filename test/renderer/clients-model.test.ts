/**
 * The Clients view's model (issue 22, item 13): offline leftovers without an id of their own
 * are hidden behind a toggle (never one with subscribers or a durable subscription); the
 * console's own taps and test publisher are labelled; socket ids are not shown; MQTT
 * subscribers of a producer's topics are counted; the console's own connections are named; a
 * realm with only SSE streams is kept (issue 28); rows carry the host's per-connection rates
 * and sort by them (issue 27).
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

  it('gives each connected row its rate and sorts the rows busiest first', () => {
    const counted = { messages_in: 1, messages_out: 1 };
    const rates: ClientList = {
      connectionId: 'local',
      fetchedAt: 0,
      realms: [
        {
          name: 'fleet',
          producers: [
            producer({ name: 'slow', socket_id: 's1', ...counted }),
            producer({ name: 'fast', socket_id: 's2', ...counted }),
            // Read once so far: measuring.
            producer({ name: 'new', socket_id: 's3', ...counted }),
            // From a broker without counters, or offline: nothing to measure.
            producer({ name: 'plain', socket_id: 's4' }),
            producer({ name: 'away', online: false, socket_id: null }),
          ],
          consumers: [consumer({ name: 'c', socket_id: 's2', ...counted })],
          mqtt: [
            {
              client_id: 's1',
              username: null,
              role: 'both',
              authenticated: false,
              transport: 'mqtt',
              clean: true,
              connected_since: 0,
              subscriptions: [],
              ...counted,
            },
          ],
        },
      ],
      rates: [
        { realm: 'fleet', protocol: 'socket.io', clientId: 's1', inPerSecond: 2, outPerSecond: 9 },
        { realm: 'fleet', protocol: 'socket.io', clientId: 's2', inPerSecond: 5, outPerSecond: 0 },
        { realm: 'fleet', protocol: 'mqtt', clientId: 's1', inPerSecond: 7, outPerSecond: 0 },
      ],
    };
    const build = (sort: 'listed' | 'name' | 'in' | 'out') =>
      buildClientsModel(rates, { onlineOnly: false, showLeftovers: true, sort }).realms[0]!;
    const listed = build('listed');
    expect(listed.producers.map((r) => [r.producer.name, r.rate])).toEqual([
      ['slow', { in: 2, out: 9 }],
      ['fast', { in: 5, out: 0 }],
      ['new', { in: null, out: null }],
      ['plain', null],
      ['away', null],
    ]);
    // The consumer on the producer's socket shares its rate; the MQTT client has its own.
    expect(listed.consumers[0]!.rate).toEqual({ in: 5, out: 0 });
    expect(listed.mqtt[0]!.rate).toEqual({ in: 7, out: 0 });
    const names = (sort: 'listed' | 'name' | 'in' | 'out') =>
      build(sort).producers.map((r) => r.producer.name);
    expect(names('in')).toEqual(['fast', 'slow', 'away', 'new', 'plain']);
    expect(names('out')).toEqual(['slow', 'fast', 'away', 'new', 'plain']);
    expect(names('name')).toEqual(['away', 'fast', 'new', 'plain', 'slow']);
  });
});
