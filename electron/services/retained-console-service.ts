/**
 * The Retained part of the ConsoleService (`shared/console-api-retained.ts`): a realm's MQTT
 * retained messages through the signed Switchboard commands `list_retained` and
 * `delete_retained` (docs/management.md "Retained messages"). Deletes go through the audited
 * pool, so Activity records them.
 *
 * A broker without `list_retained` (a plain tyo-mq broker, an older Switchboard) answers `400
 * unknown management command`: `listRetained` reports `state: 'unsupported'` then and asks
 * that client no more (the view polls; each refusal is a warning in the broker's log). A
 * broker running without MQTT answers 409 `MQTT is not enabled on this broker`: `mqtt-off`.
 */
import { SwitchboardError } from '../../shared/error-catalogue';
import type {
  RetainedEntry,
  RetainedList,
  RetainedMethods,
} from '../../shared/console-api-retained';
import type { ManagerClient } from './manager-client';
import { isUnknownCommand } from './unknown-command';
import type { ManagerPool } from './manager-pool';
import type { z } from 'zod';

type Methods = typeof RetainedMethods;
type Input<M extends keyof Methods> = z.infer<Methods[M]['input']>;
type Output<M extends keyof Methods> = z.infer<Methods[M]['output']>;

/** The Retained methods, as `createConsoleService` spreads them. */
export type RetainedService = { [M in keyof Methods]: (input: Input<M>) => Promise<Output<M>> };

/** Clients whose broker refused `list_retained` as unknown. */
const withoutRetained = new WeakSet<ManagerClient>();

function mqttOff(error: unknown): boolean {
  return (
    error instanceof SwitchboardError &&
    error.code === 'SWB_ERR_CONFLICT' &&
    /MQTT is not enabled/i.test(error.message)
  );
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
const seconds = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;

function toEntry(raw: Record<string, unknown>): RetainedEntry {
  return {
    topic: str(raw.topic),
    qos: Math.min(2, int(raw.qos)),
    sizeBytes: int(raw.size_bytes),
    payload: str(raw.payload),
    payloadEncoding: raw.payload_encoding === 'base64' ? 'base64' : 'utf8',
    truncated: raw.truncated === true,
    contentType: typeof raw.content_type === 'string' ? raw.content_type : null,
    messageExpiryIntervalS: seconds(raw.message_expiry_interval_s),
    expiresInS: seconds(raw.expires_in_s),
  };
}

const records = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v)
    ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object')
    : [];

/** Builds the methods over the (audited) manager pool. Errors: see `RetainedMethods`. */
export function createRetainedService(deps: { pool: Pick<ManagerPool, 'get'> }): RetainedService {
  const { pool } = deps;
  return {
    listRetained: async ({ connectionId, realm, filter, cursor, limit }): Promise<RetainedList> => {
      const client = pool.get(connectionId);
      const shown = filter ?? '#';
      const empty = (state: RetainedList['state']): RetainedList => ({
        connectionId,
        state,
        realm,
        filter: shown,
        entries: [],
        nextCursor: null,
        fetchedAt: Date.now(),
      });
      if (withoutRetained.has(client)) return empty('unsupported');
      let reply;
      try {
        reply = await client.command({
          command: 'list_retained',
          realm,
          filter: shown,
          ...(cursor ? { cursor } : {}),
          ...(limit ? { limit } : {}),
        });
      } catch (error) {
        if (mqttOff(error)) return empty('mqtt-off');
        if (!isUnknownCommand(error)) throw error;
        withoutRetained.add(client);
        return empty('unsupported');
      }
      return {
        ...empty('ok'),
        realm: str(reply.realm) || realm,
        entries: records(reply.entries).map(toEntry),
        nextCursor: typeof reply.next_cursor === 'string' ? reply.next_cursor : null,
      };
    },
    getRetained: async ({ connectionId, realm, topic }) => {
      const reply = await pool
        .get(connectionId)
        .command({ command: 'list_retained', realm, topic });
      const [first] = records(reply.entries);
      return first ? toEntry(first) : null;
    },
    deleteRetained: async (input) => {
      const { connectionId, realm, topic, filter } = input;
      if ((topic === undefined) === (filter === undefined)) {
        throw new SwitchboardError('SWB_ERR_VALIDATION', 'Give either a topic or a filter');
      }
      if (filter !== undefined && input.confirmFilter !== filter) {
        throw new SwitchboardError(
          'SWB_ERR_VALIDATION',
          `Type the filter (${filter}) to delete every retained message it matches`,
        );
      }
      const reply = await pool.get(connectionId).command({
        command: 'delete_retained',
        realm,
        ...(topic !== undefined ? { topic } : { filter }),
      });
      const deleted = int(reply.deleted);
      const what = deleted === 1 ? 'retained message' : 'retained messages';
      return {
        connectionId,
        deleted,
        summary:
          `Deleted ${deleted} ${what} ` +
          (topic !== undefined ? `of ${topic}` : `matching ${filter}`) +
          ` in ${realm}.`,
      };
    },
  };
}
