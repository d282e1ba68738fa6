/**
 * The connection the tap, demo and local broker views act on. Until the console's connection
 * picker lands (a `selectedConnectionId` in the store), it is always the local broker; this is
 * the one place to switch over.
 */
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';

export function useConnectionId(): string {
  return LOCAL_CONNECTION_ID;
}
