/**
 * The operations part of the ConsoleService (`shared/console-api-operations.ts`): metric history
 * for the Overview charts, the dead-letter queue through signed management commands, and the
 * clients listing through the broker's `GET /api/clients`, with each connection's messages in /
 * out per second (client-rates.ts).
 *
 * Source: issue 13; `spec/protocol-admin.md` §8.2 (`dlq_list`/`dlq_replay`/`dlq_discard` with
 * Switchboard's `limit`/`cursor`/`ids`, docs/management.md), docs/http-api.md (`/api/clients`).
 */
import { ClientsSchema, HttpPath } from '../../shared/http-api';
import type { ConsoleFootprint, OperationsMethods } from '../../shared/console-api-operations';
import {
  type ClientList,
  type DeadLetterBatchResult,
  type DeadLetterPage,
} from '../../shared/console-api-operations';
import type { ConsoleEventHub } from './console-event-hub';
import type { ConnectionManager } from './connection-manager';
import { clientDetail, closeClient } from './client-control';
import { ClientRateTracker } from './client-rates';
import { toDeadLetter } from './dead-letters';
import { httpGetText } from './http-get';
import type { ManagerPool } from './manager-pool';
import { MetricsHistory } from './metrics-history';
import { SwitchboardError } from '../../shared/error-catalogue';
import type { z } from 'zod';

type Methods = typeof OperationsMethods;
type Input<M extends keyof Methods> = z.infer<Methods[M]['input']>;
type Output<M extends keyof Methods> = z.infer<Methods[M]['output']>;

/** The operations methods, as `createConsoleService` spreads them. */
export type OperationsService = {
  [M in keyof Methods]: (input: Input<M>) => Promise<Output<M>>;
};

export interface OperationsDeps {
  connections: ConnectionManager;
  pool: ManagerPool;
  hub: ConsoleEventHub;
  /** Receives the function that detaches the service (called by the ConsoleService's close). */
  disposers: (() => void)[];
  /** Timeout of `GET /api/clients`, ms. Default 5000. */
  timeoutMs?: number;
  /** What this console holds on the connection's broker (labelled in the Clients view). */
  consoleFootprint?: (connectionId: string) => ConsoleFootprint;
}

/** Default page of `listDeadLetters`. */
const DEFAULT_PAGE = 1_000;

/**
 * Builds the methods and starts recording every scrape of every connection into the metric
 * history (emitting `metricsPoint`). Errors: see `OperationsMethods`.
 */
export function createOperationsService(deps: OperationsDeps): OperationsService {
  const { connections, pool, hub } = deps;
  const history = new MetricsHistory();
  deps.disposers.push(
    connections.onSample((connectionId, sample, metrics) => {
      history.retain(connections.ids());
      const point = history.record(connectionId, sample, metrics);
      hub.emit('metricsPoint', { connectionId, point });
    }),
  );

  const trackers = new Map<string, ClientRateTracker>();
  const clientRates = (connectionId: string): ClientRateTracker => {
    let t = trackers.get(connectionId);
    if (!t) trackers.set(connectionId, (t = new ClientRateTracker()));
    return t;
  };

  const batch = async (
    command: 'dlq_replay' | 'dlq_discard',
    { connectionId, realm, ids }: Input<'replayDeadLetters'>,
  ): Promise<DeadLetterBatchResult> => {
    const reply = await pool.get(connectionId).command({
      command,
      ids,
      ...(realm ? { realm } : {}),
    });
    const done =
      command === 'dlq_replay'
        ? ((reply.replayed as { msg_id: string }[] | undefined) ?? []).map((r) => r.msg_id)
        : ((reply.discarded as string[] | undefined) ?? []);
    return { connectionId, done, notFound: (reply.not_found as string[] | undefined) ?? [] };
  };

  return {
    getMetricsHistory: async ({ connectionId, range }) => {
      connections.profile(connectionId); // SWB_ERR_NOT_FOUND for an unknown id
      return { connectionId, range, points: history.points(connectionId, range) };
    },
    listDeadLetters: async ({ connectionId, realm, cursor, limit }): Promise<DeadLetterPage> => {
      const reply = await pool.get(connectionId).command({
        command: 'dlq_list',
        limit: limit ?? DEFAULT_PAGE,
        ...(realm ? { realm } : {}),
        ...(cursor ? { cursor } : {}),
      });
      const entries = Array.isArray(reply.entries) ? reply.entries : [];
      return {
        connectionId,
        realm: realm ?? null,
        entries: entries.map((entry) => toDeadLetter(entry as Record<string, unknown>)),
        total: typeof reply.total === 'number' ? reply.total : entries.length,
        nextCursor: typeof reply.next_cursor === 'string' ? reply.next_cursor : null,
      };
    },
    replayDeadLetters: (input) => batch('dlq_replay', input),
    getClientDetail: (input) => clientDetail(pool, input),
    closeClient: (input) => closeClient(pool, input),
    discardDeadLetters: (input) => batch('dlq_discard', input),
    listClients: async ({ connectionId }): Promise<ClientList> => {
      const profile = connections.profile(connectionId);
      const target = profile.target();
      if (!target) {
        throw new SwitchboardError(
          profile.local ? 'SWB_ERR_BROKER_NOT_RUNNING' : 'SWB_ERR_BROKER_UNREACHABLE',
        );
      }
      const headers: Record<string, string> = {};
      if (target.bearerToken) headers.authorization = `Bearer ${target.bearerToken}`;
      let response;
      try {
        response = await httpGetText(new URL(HttpPath.CLIENTS, target.baseUrl).toString(), {
          timeoutMs: deps.timeoutMs ?? 5_000,
          headers,
        });
      } catch (error) {
        throw new SwitchboardError('SWB_ERR_BROKER_UNREACHABLE', (error as Error).message);
      }
      if (response.status === 401) {
        throw new SwitchboardError('SWB_ERR_UNAUTHORIZED', 'The broker refused the admin token');
      }
      if (response.status !== 200) {
        throw new SwitchboardError(
          'SWB_ERR_NOT_FOUND',
          `GET ${HttpPath.CLIENTS} answered HTTP ${response.status}: the broker has no clients ` +
            'listing (an older Switchboard, or http_api.stats is off)',
        );
      }
      let parsed;
      try {
        parsed = ClientsSchema.parse(JSON.parse(response.body));
      } catch {
        throw new SwitchboardError('SWB_ERR_INTERNAL', `Invalid ${HttpPath.CLIENTS} response`);
      }
      const realms = Object.entries(parsed.realms)
        .map(([name, realm]) => ({ name, ...realm }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const footprint = deps.consoleFootprint?.(connectionId);
      const fetchedAt = Date.now();
      return {
        connectionId,
        realms,
        fetchedAt,
        ...(footprint ? { console: footprint } : {}),
        rates: clientRates(connectionId).rates(realms, fetchedAt),
      };
    },
  };
}
