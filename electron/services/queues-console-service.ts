/**
 * The Queues part of the ConsoleService (`shared/console-api-queues.ts`): a broker's durable
 * queues, a queue's stored copies, the purge of its ready copies and (`queue-actions-console.ts`)
 * the move and release of copies, through the signed Switchboard commands `list_queues`,
 * `peek_queue`, `purge_queue`, `move_queue`, `release_in_flight` (docs/management.md "Queues"). The purge goes through the audited pool, so Activity records it.
 *
 * A broker without `list_queues` (a plain tyo-mq broker, an older Switchboard) answers `400
 * unknown management command`: `listQueues` reports `supported: false` then, and asks that
 * client no more (the view polls every few seconds; each refusal is a warning in the broker's
 * log). A new client (another address, a new credential) asks again.
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import type {
  QueueList,
  QueuePeek,
  QueueRow,
  QueuedMessage,
  QueuesMethods,
} from '../../shared/console-api-queues';
import type { ManagerClient, ManagerReply } from './manager-client';
import { moveQueue, releaseInFlight } from './queue-actions-console';
import { QueueRateTracker } from './queue-rates';
import { isUnknownCommand } from './unknown-command';
import type { ManagerPool } from './manager-pool';
import type { z } from 'zod';

type Methods = typeof QueuesMethods;
type Input<M extends keyof Methods> = z.infer<Methods[M]['input']>;
type Output<M extends keyof Methods> = z.infer<Methods[M]['output']>;

/** The Queues methods, as `createConsoleService` spreads them. */
export type QueuesService = { [M in keyof Methods]: (input: Input<M>) => Promise<Output<M>> };

/** Clients whose broker refused `list_queues` as unknown. */
const withoutQueues = new WeakSet<ManagerClient>();

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;

function toRow(raw: Record<string, unknown>): Omit<QueueRow, 'rates'> {
  const age = raw.oldest_ready_age_ms;
  return {
    id: str(raw.id),
    realm: str(raw.realm),
    key: str(raw.key),
    consumer: str(raw.consumer),
    consumerId: str(raw.consumer_id),
    group: typeof raw.group === 'string' ? raw.group : null,
    subscribed: raw.subscribed === true,
    online: raw.online === true,
    stored: int(raw.stored),
    ready: int(raw.ready),
    inFlight: int(raw.in_flight),
    oldestReadyAgeMs: typeof age === 'number' && age >= 0 ? age : null,
    enqueuedTotal: int(raw.enqueued_total),
    deliveredTotal: int(raw.delivered_total),
    ackedTotal: int(raw.acked_total),
  };
}

/** An ISO time of the broker as epoch ms, null when absent or malformed. */
function epoch(v: unknown): number | null {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

function toMessage(raw: Record<string, unknown>): QueuedMessage {
  const created = Date.parse(str(raw.created_at));
  return {
    msgId: str(raw.msg_id),
    event: str(raw.event),
    producer: str(raw.producer),
    createdAt: Number.isFinite(created) ? created : null,
    ageMs: int(raw.age_ms),
    attempts: int(raw.attempts),
    inFlight: raw.in_flight === true,
    ackDeadlineAt: epoch(raw.ack_deadline_at),
    nextRetryAt: epoch(raw.next_retry_at),
    size: int(raw.size),
    preview: str(raw.preview),
    truncated: raw.truncated === true,
  };
}

const records = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v)
    ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object')
    : [];

/** Builds the methods over the (audited) manager pool. Errors: see `QueuesMethods`. */
export function createQueuesService(deps: { pool: Pick<ManagerPool, 'get'> }): QueuesService {
  const { pool } = deps;
  const trackers = new Map<string, QueueRateTracker>();
  const tracker = (connectionId: string): QueueRateTracker => {
    let t = trackers.get(connectionId);
    if (!t) trackers.set(connectionId, (t = new QueueRateTracker()));
    return t;
  };
  /** The rates of `row`; a broker without the counters (no `enqueued_total`) gets none. */
  const withRates = (connectionId: string, raw: Record<string, unknown>, at: number): QueueRow => {
    const row = toRow(raw);
    const counted = typeof raw.enqueued_total === 'number';
    const totals = {
      enqueued: row.enqueuedTotal,
      delivered: row.deliveredTotal,
      acked: row.ackedTotal,
    };
    return { ...row, rates: counted ? tracker(connectionId).rates(row.id, totals, at) : null };
  };
  const target = (input: { realm: string; consumer: string; key?: string }) => ({
    realm: input.realm,
    consumer: input.consumer,
    ...(input.key ? { key: input.key } : {}),
  });

  return {
    listQueues: async ({ connectionId, realm, cursor, limit }): Promise<QueueList> => {
      const client = pool.get(connectionId);
      const none: QueueList = {
        connectionId,
        supported: false,
        queues: [],
        total: 0,
        nextCursor: null,
        fetchedAt: Date.now(),
      };
      if (withoutQueues.has(client)) return none;
      let reply;
      try {
        reply = await client.command({
          command: 'list_queues',
          ...(realm ? { realm } : {}),
          ...(cursor ? { cursor } : {}),
          ...(limit ? { limit } : {}),
        });
      } catch (error) {
        if (!isUnknownCommand(error)) throw error;
        withoutQueues.add(client);
        return none;
      }
      const fetchedAt = Date.now();
      const queues = records(reply.queues).map((raw) => withRates(connectionId, raw, fetchedAt));
      return {
        connectionId,
        supported: true,
        queues,
        total: typeof reply.total === 'number' ? reply.total : queues.length,
        nextCursor: typeof reply.next_cursor === 'string' ? reply.next_cursor : null,
        fetchedAt,
      };
    },
    peekQueue: async (input): Promise<QueuePeek> => {
      const reply = await pool.get(input.connectionId).command({
        command: 'peek_queue',
        ...target(input),
        ...(input.cursor ? { cursor: input.cursor } : {}),
        ...(input.limit ? { limit: input.limit } : {}),
        ...(input.state ? { state: input.state } : {}),
      });
      return {
        connectionId: input.connectionId,
        realm: str(reply.realm) || input.realm,
        key: str(reply.key),
        consumer: str(reply.consumer) || input.consumer,
        stored: int(reply.stored),
        messages: records(reply.messages).map(toMessage),
        nextCursor: typeof reply.next_cursor === 'string' ? reply.next_cursor : null,
      };
    },
    purgeQueue: async (input) => {
      // A whole purge is typed out; chosen copies were picked one by one in Peek.
      if (!input.ids && input.confirmName !== input.consumer) {
        throw new SwitchboardError(
          'SWB_ERR_VALIDATION',
          `Type the consumer's name (${input.consumer}) to purge its queue`,
        );
      }
      // Chosen copies go through their own command: a broker without it says so, where one
      // that ignored `ids` on `purge_queue` would delete every ready copy.
      let reply: ManagerReply;
      try {
        reply = await pool
          .get(input.connectionId)
          .command(
            input.ids
              ? { command: 'discard_queued', ...target(input), ids: input.ids }
              : { command: 'purge_queue', ...target(input) },
          );
      } catch (error) {
        if (!input.ids || !isUnknownCommand(error)) throw error;
        throw new SwitchboardError(
          'SWB_ERR_VALIDATION',
          'This broker does not offer discard_queued (deleting chosen messages); nothing was deleted.',
        );
      }
      const purged = int(input.ids ? reply.discarded : reply.purged);
      const kept = int(reply.in_flight_kept);
      const notFound = Array.isArray(reply.not_found) ? reply.not_found.length : 0;
      const plural = (n: number) => (n === 1 ? 'message' : 'messages');
      const done = input.ids
        ? `Discarded ${purged} selected ${plural(purged)}`
        : `Purged ${purged} ready ${plural(purged)}`;
      return {
        connectionId: input.connectionId,
        purged,
        inFlightKept: kept,
        notFound,
        summary:
          `${done} of ${input.consumer} in ${input.realm}` +
          (kept > 0 ? `; ${kept} in flight kept (awaiting their ACK)` : '') +
          (notFound > 0 ? `; ${notFound} no longer queued` : '') +
          '.',
      };
    },
    moveQueue: (input) => moveQueue(pool, input),
    releaseInFlight: (input) => releaseInFlight(pool, input),
  };
}
