/**
 * Which broker connection the operations views (charts, dead letters, clients) show. One hook,
 * so that switching to the store's selected connection (console connections, issue 13) is a
 * one-line change here.
 */
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';

/** The connection id the operations views act on. */
export function useConnectionId(): string {
  return LOCAL_CONNECTION_ID;
}
