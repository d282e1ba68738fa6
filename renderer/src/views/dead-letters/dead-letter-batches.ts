/**
 * How the Dead letters view sends a replay or discard: ids ordered by realm and one call per
 * realm in each batch, so that each Activity entry names its realm (with the view showing all
 * realms); a discard carries the confirmation the host mints for exactly its ids
 * (confirmed-call.ts) — call `sender` only after the operator confirmed.
 */
import type { DeadLetterBatchResult } from '../../../../shared/console-api-operations';
import type { ConsoleClient } from '../../api/console-client';
import { confirmedCall } from '../../api/confirmed-call';
import type { ActionKind } from './dead-letter-actions';

/** Orders ids by their realm (unknown realms last), for batches that stay within one realm. */
export function byRealm(realmOf: ReadonlyMap<string, string>, a: string, b: string): number {
  const ra = realmOf.get(a) ?? '\uffff';
  const rb = realmOf.get(b) ?? '\uffff';
  return ra < rb ? -1 : ra > rb ? 1 : 0;
}

/** A batch's ids by realm, in first-seen order; ids of no known realm under `''` (sent with no
 * realm: the broker then looks in every realm). */
export function groupByRealm(
  realmOf: ReadonlyMap<string, string>,
  ids: readonly string[],
): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const realm = realmOf.get(id) ?? '';
    const list = groups.get(realm);
    if (list) list.push(id);
    else groups.set(realm, [id]);
  }
  return groups;
}

/**
 * `ids` in the order to send them, and the batch call for `runBatches`: one ConsoleApi call per
 * realm of the batch (`realm` set: that realm only), results merged; a refusal throws its message.
 */
export function realmBatches(
  client: ConsoleClient,
  kind: ActionKind,
  connectionId: string,
  realm: string | null,
  realmOf: ReadonlyMap<string, string>,
  ids: readonly string[],
): { ordered: string[]; call: (batch: string[]) => Promise<DeadLetterBatchResult> } {
  const send = async (input: { connectionId: string; realm?: string; ids: string[] }) => {
    const result =
      kind === 'replay'
        ? await client.api.replayDeadLetters(input)
        : await confirmedCall(client.api, 'discardDeadLetters', input);
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  };
  const ordered = realm ? [...ids] : [...ids].sort((a, b) => byRealm(realmOf, a, b));
  const call = async (batch: string[]): Promise<DeadLetterBatchResult> => {
    const groups = realm ? new Map([[realm, batch]]) : groupByRealm(realmOf, batch);
    const merged: DeadLetterBatchResult = { connectionId, done: [], notFound: [] };
    for (const [group, groupIds] of groups) {
      const value = await send({ connectionId, ...(group ? { realm: group } : {}), ids: groupIds });
      merged.done.push(...value.done);
      merged.notFound.push(...value.notFound);
    }
    return merged;
  };
  return { ordered, call };
}
