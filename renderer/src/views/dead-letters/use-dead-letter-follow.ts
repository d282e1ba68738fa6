/**
 * Follow mode of the Dead letters view (issue 22, item 15): while on, asks the broker every
 * `FOLLOW_EVERY_MS` for the entries after the last one loaded (`dlq_list` with `cursor` = that
 * entry's id, docs/management.md) and hands them to the view, so the list fills while a DLQ
 * does, without Refresh.
 */
import { useEffect, useRef } from 'react';
import type { DeadLetter } from '../../../../shared/console-api-operations';
import type { ConsoleClient } from '../../api/console-client';
import { LOAD_PAGE } from './dead-letters-model';

/** Period of the follow poll, ms. */
export const FOLLOW_EVERY_MS = 1_000;

export interface DeadLetterFollowOptions {
  client: ConsoleClient;
  connectionId: string;
  /** '' for all realms. */
  realm: string;
  enabled: boolean;
  /**
   * Id of the newest entry loaded (null: none loaded, ask from the start); undefined while the
   * view must not be appended to (loading, or a replay/discard running): the poll skips a turn.
   */
  lastId: string | null | undefined;
  /** New entries, oldest first (may repeat ids the view has if it changed meanwhile). */
  onEntries: (entries: DeadLetter[]) => void;
  /** The last loaded entry is gone from the broker (replayed or discarded elsewhere). */
  onGone: () => void;
}

export function useDeadLetterFollow(options: DeadLetterFollowOptions): void {
  const latest = useRef(options);
  useEffect(() => {
    latest.current = options;
  });
  const { client, connectionId, realm, enabled } = options;
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const tick = async (): Promise<void> => {
      const { lastId } = latest.current;
      if (lastId !== undefined) {
        const result = await client.api.listDeadLetters({
          connectionId,
          ...(realm ? { realm } : {}),
          cursor: lastId,
          limit: LOAD_PAGE,
        });
        if (!live) return;
        // The state may have moved on while the call was out: the view's handlers check it.
        if (result.ok) {
          if (result.value.entries.length > 0) latest.current.onEntries(result.value.entries);
        } else if (result.error.code === 'SWB_ERR_VALIDATION') {
          latest.current.onGone();
        }
      }
      timer = setTimeout(() => void tick(), FOLLOW_EVERY_MS);
    };
    timer = setTimeout(() => void tick(), 0);
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [client, connectionId, realm, enabled]);
}
