/**
 * The connection the Realms, Tokens, Activity and Requests views act on. One place to change
 * when the connection switcher lands (the store's selected connection); every ConsoleApi call
 * of these views takes this id.
 */
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';

export function useConnectionId(): string {
  return LOCAL_CONNECTION_ID;
}
