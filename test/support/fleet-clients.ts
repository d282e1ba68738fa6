/**
 * Real tyo-mq clients (socket.io-client) for tests: a consumer subscribed to one producer's
 * event and a producer emitting a batch. Event names come from shared/protocol-events.
 */
import { io, type Socket } from 'socket.io-client';
import { ClientEvent, consumeEvent, subscriptionKey } from '../../shared/protocol-events';
import { HttpPath, StatsSchema } from '../../shared/http-api';
import { httpGetText } from '../../electron/services/http-get';

/** Connects with the websocket transport only and no reconnection (tests close what they open). */
export async function connectClient(url: string): Promise<Socket> {
  const socket = io(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    timeout: 5_000,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

export interface TestConsumer {
  socket: Socket;
  received: unknown[];
  /** Resolves once `count` deliveries have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
}

/** Registers consumer `name` and subscribes it to `event` from `producer`. */
export async function connectConsumer(
  url: string,
  name: string,
  producer: string,
  event: string,
): Promise<TestConsumer> {
  const socket = await connectClient(url);
  const received: unknown[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  socket.on(consumeEvent(subscriptionKey(producer, event)), (envelope: { message: unknown }) => {
    received.push(envelope.message);
    for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
  });
  socket.emit(ClientEvent.CONSUMER, { name, id: name, consumer_id: name });
  socket.emit(ClientEvent.SUBSCRIBE, { event, producer, consumer: name, consumer_id: name });
  return {
    socket,
    received,
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`received ${received.length}/${count} messages`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
  };
}

/** Registers producer `name`. */
export async function connectProducer(url: string, name: string): Promise<Socket> {
  const socket = await connectClient(url);
  socket.emit(ClientEvent.PRODUCER, { name });
  return socket;
}

/** Emits `count` messages `0…count-1` as `event` from producer `from`. */
export function produceBatch(producer: Socket, event: string, from: string, count: number): void {
  for (let i = 0; i < count; i += 1)
    producer.emit(ClientEvent.PRODUCE, { event, message: i, from });
}

/**
 * Waits until the broker's `/api/stats` shows at least `consumers` online consumers and
 * `producers` online producers and a subscription in `realm` (default "default"), so a batch
 * produced afterwards is routed to them.
 */
export async function waitForRegistrations(
  brokerUrl: string,
  {
    consumers = 0,
    producers = 0,
    realm = 'default',
    timeoutMs = 10_000,
    bearerToken = undefined as string | undefined,
  } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const headers: Record<string, string> = bearerToken
    ? { authorization: `Bearer ${bearerToken}` }
    : {};
  for (;;) {
    const response = await httpGetText(new URL(HttpPath.STATS, brokerUrl).toString(), { headers });
    const stats = StatsSchema.parse(JSON.parse(response.body));
    const r = stats.realms[realm];
    if (
      r &&
      r.consumers.online >= consumers &&
      r.producers.online >= producers &&
      r.subscriptions >= (consumers ? 1 : 0)
    )
      return;
    if (Date.now() > deadline)
      throw new Error(`registrations not visible: ${JSON.stringify(stats)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
