/**
 * Payloads exactly as the stock tyo-mq clients put them on the wire (spec §1.3, §3.3, §3.5, §14.1).
 *
 * - JS client (`lib/subscriber.js`, `lib/publisher.js`): `CONSUMER {name, id, consumer_id}` with
 *   `id = consumer_id = name` by default, `PRODUCER {name}` (no id), and a `SUBSCRIBE` carrying every
 *   option key (`durable`, `ack`, `manual_ack` as booleans, `retry`/`mode`/`group` as null when unset,
 *   `scope`/`ack_timeout` left undefined so JSON drops them).
 * - Python client: `PRODUCER {name, id:<uuid>}`, `SUBSCRIBE {event, producer, consumer, scope,
 *   consumer_id}` plus only the options that are set; `PRODUCE` always carries `method:"unicast"`.
 * - C# client: the same objects sent as JSON-encoded *strings* (§1.2).
 */
import { randomUUID } from 'node:crypto';
import { Protocol } from '../../shared/protocol-events';

export interface ConsumerPayload {
  name: string;
  id: string;
  consumer_id: string;
}

/** JS/Python `CONSUMER`: `id = consumer_id = name` unless a consumer id is configured (§1.3). */
export function consumerPayload(name: string, consumerId: string = name): ConsumerPayload {
  return { name, id: consumerId, consumer_id: consumerId };
}

/** JS `PRODUCER`: just the name (§1.3). */
export function jsProducerPayload(name: string): { name: string } {
  return { name };
}

/** Python `PRODUCER`: the name plus a random UUID id (§1.3). */
export function pyProducerPayload(
  name: string,
  id: string = randomUUID(),
): { name: string; id: string } {
  return { name, id };
}

export interface SubscribeOptions {
  durable?: boolean;
  ack?: boolean;
  manualAck?: boolean;
  ackTimeout?: string | number;
  retry?: Record<string, unknown> | null;
  mode?: 'topic' | null;
  group?: string | null;
  consumerId?: string;
  scope?: string;
}

/** The `SUBSCRIBE` object of the JS client at `cd08b98` (`lib/subscriber.js`, §3.3). */
export function jsSubscribePayload(
  consumer: string,
  producer: string,
  event: string,
  o: SubscribeOptions = {},
): Record<string, unknown> {
  const ack = !!(o.ack || o.manualAck);
  return {
    event,
    producer,
    consumer,
    scope: o.scope, // undefined for a normal subscription: JSON drops it
    durable: !!o.durable,
    consumer_id: o.consumerId ?? consumer,
    ack,
    manual_ack: !!o.manualAck,
    ack_timeout: o.ackTimeout, // undefined unless set
    // The client sends `option || null`, so an empty group name goes out as null.
    retry: o.retry || null,
    mode: o.mode || null,
    group: o.group || null,
  };
}

/** The `SUBSCRIBE` object of the Python client (`tyo_mq_client/subscriber.py`, §3.3). */
export function pySubscribePayload(
  consumer: string,
  producer: string,
  event: string | null,
  o: SubscribeOptions = {},
): Record<string, unknown> {
  const isAll = event === null;
  const payload: Record<string, unknown> = {
    event: isAll ? Protocol.EVENT_ALL : event,
    producer,
    consumer,
    scope: isAll ? Protocol.SCOPE_ALL : Protocol.SCOPE_DEFAULT,
    consumer_id: o.consumerId ?? consumer,
  };
  if (o.durable) payload.durable = true;
  if (o.ack || o.manualAck) payload.ack = true;
  if (o.manualAck) payload.manual_ack = true;
  if (o.mode) payload.mode = o.mode;
  if (o.group) payload.group = o.group;
  return payload;
}

export interface ProduceOptions {
  from?: string;
  contentType?: string;
  enc?: unknown;
  to?: string;
  method?: string;
  broadcast?: 'realm' | 'group';
  group?: string;
  guaranteed?: boolean;
  ttl?: number;
}

/** A `PRODUCE` object (§3.5): `{event, message, from}` plus any options given. */
export function producePayload(
  event: unknown,
  message: unknown,
  o: ProduceOptions = {},
): Record<string, unknown> {
  const payload: Record<string, unknown> = { event, message };
  if (o.from !== undefined) payload.from = o.from;
  if (o.contentType !== undefined) payload.contentType = o.contentType;
  if (o.enc !== undefined) payload.enc = o.enc;
  if (o.to !== undefined) payload.to = o.to;
  if (o.method !== undefined) payload.method = o.method;
  if (o.broadcast !== undefined) {
    payload.method = 'broadcast';
    payload.broadcast = o.broadcast;
  }
  if (o.group !== undefined) payload.group = o.group;
  if (o.guaranteed !== undefined) payload.guaranteed = o.guaranteed;
  if (o.ttl !== undefined) payload.ttl = o.ttl;
  return payload;
}

/** C#-client style: the same payload as a JSON-encoded string (§1.2). */
export function asJsonString(payload: unknown): string {
  return JSON.stringify(payload);
}

/** A transfer id in the JS client's format: base-36 ms, a hyphen, random base-36 (§14.1). */
export function newTransferId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 13)}`;
}

export interface ChunkFrame {
  transferId: string;
  index: number;
  total: number;
  data: string;
}

/** Splits a `PRODUCE` object's JSON text into `PRODUCE_CHUNK` frames as the clients do (§14.1). */
export function chunkFrames(
  produce: unknown,
  chunkSize: number = Protocol.CHUNK_SIZE,
  transferId: string = newTransferId(),
): ChunkFrame[] {
  const text = JSON.stringify(produce);
  const total = Math.ceil(text.length / chunkSize);
  const frames: ChunkFrame[] = [];
  for (let index = 0; index < total; index++) {
    frames.push({
      transferId,
      index,
      total,
      data: text.slice(index * chunkSize, (index + 1) * chunkSize),
    });
  }
  return frames;
}
