/**
 * The pending authorization requests of a connection, as the Requests view and the sidebar
 * badge need them: every one, oldest first, a page at a time, with the count per realm.
 *
 * Switchboard brokers answer the signed `list_requests` command (docs/management.md "Listing
 * pending requests"). A broker without it (another tyo-mq-protocol broker: `400 unknown
 * management command`) shows a manager only the oldest request of a filter
 * (`AUTHORIZATION_NEXT`, `spec/protocol-admin.md` §7.2): the queue then holds the oldest one
 * overall plus the oldest of each configured realm, and says it is incomplete.
 */
import type { RequestQueue } from '../../shared/console-api-realms';
import { toAuthorizationRequest, toRealmList } from './manager-pool';
import type { ManagerClient } from './manager-client';
import { isUnknownCommand } from './unknown-command';

/** Most realms asked for their oldest pending request on a broker without `list_requests`. */
const MAX_QUEUE_REALMS = 50;
/** Requests per page unless the caller asks for another size. */
export const DEFAULT_QUEUE_PAGE = 20;

type Client = Pick<ManagerClient, 'command' | 'next'>;

/**
 * Clients whose broker refused `list_requests` as unknown: asked no more (the watcher polls every
 * second, and each refusal is a warning in that broker's log). A new client (another address,
 * a new credential) asks again.
 */
const withoutList = new WeakSet<Client>();

function counts(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [realm, n] of Object.entries(value)) {
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) out[realm] = n;
  }
  return out;
}

/**
 * One page of `connectionId`'s pending requests (`realm` only, when given), oldest first.
 * Errors: those of `ManagerClient` (unreachable, refused).
 */
export async function pendingPage(
  client: Client,
  connectionId: string,
  input: { realm?: string; cursor?: string; limit?: number },
): Promise<RequestQueue> {
  const { realm, cursor } = input;
  const limit = input.limit ?? DEFAULT_QUEUE_PAGE;
  if (withoutList.has(client)) return oldestPerRealm(client, connectionId, realm);
  try {
    const reply = await client.command({
      command: 'list_requests',
      limit,
      ...(realm ? { realm } : {}),
      ...(cursor ? { cursor } : {}),
    });
    const raw = Array.isArray(reply.requests) ? (reply.requests as Record<string, unknown>[]) : [];
    const requests = raw.map(toAuthorizationRequest);
    return {
      connectionId,
      realm: realm ?? null,
      requests,
      total: typeof reply.total === 'number' ? reply.total : requests.length,
      perRealm: counts(reply.per_realm),
      nextCursor: typeof reply.next_cursor === 'string' ? reply.next_cursor : null,
      complete: true,
    };
  } catch (error) {
    if (!isUnknownCommand(error)) throw error;
    withoutList.add(client);
  }
  return oldestPerRealm(client, connectionId, realm);
}

/** The queue of a broker without `list_requests` (see the header). */
async function oldestPerRealm(
  client: Client,
  connectionId: string,
  realm: string | undefined,
): Promise<RequestQueue> {
  const found = new Map<string, ReturnType<typeof toAuthorizationRequest>>();
  const add = (raw: Record<string, unknown> | null) => {
    if (!raw) return;
    const request = toAuthorizationRequest(raw);
    if (request.requestId) found.set(request.requestId, request);
  };
  if (realm) {
    add(await client.next(realm));
  } else {
    add(await client.next());
    const reply = await client.command({ command: 'get' });
    const names = toRealmList(connectionId, reply.settings).realms.map((r) => r.name);
    for (const name of names.slice(0, MAX_QUEUE_REALMS)) add(await client.next(name));
  }
  const requests = [...found.values()].sort(
    (a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.requestId.localeCompare(b.requestId),
  );
  const perRealm: Record<string, number> = {};
  for (const r of requests) perRealm[r.realm] = (perRealm[r.realm] ?? 0) + 1;
  return {
    connectionId,
    realm: realm ?? null,
    requests,
    total: requests.length,
    perRealm,
    nextCursor: null,
    complete: false,
  };
}

/**
 * The oldest pending request (in `realm` when given) and how many are pending: one
 * `list_requests` of one entry, or `AUTHORIZATION_NEXT` alone (total 0 or 1) on a broker
 * without it.
 */
export async function oldestPending(
  client: Client,
  realm?: string,
): Promise<{ request: Record<string, unknown> | null; total: number }> {
  if (withoutList.has(client)) {
    const request = await client.next(realm);
    return { request, total: request ? 1 : 0 };
  }
  try {
    const reply = await client.command({
      command: 'list_requests',
      limit: 1,
      ...(realm ? { realm } : {}),
    });
    const first = Array.isArray(reply.requests) ? reply.requests[0] : undefined;
    const request =
      typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : null;
    return { request, total: typeof reply.total === 'number' ? reply.total : request ? 1 : 0 };
  } catch (error) {
    if (!isUnknownCommand(error)) throw error;
    withoutList.add(client);
  }
  const request = await client.next(realm);
  return { request, total: request ? 1 : 0 };
}
