/**
 * Per-client subscriptions to connections: a client (a web page, an Electron window) says which
 * connections it shows, and only those connections' events reach it — no pushing every
 * connection's overview to every client every second (issue 12, "One contract for many brokers").
 * An event belongs to a connection when its payload names a `connectionId`; other events (the
 * connection list, the local broker's lifecycle) go to every client.
 */
import { z } from 'zod';
import { LOCAL_CONNECTION_ID } from '../../shared/console-api';

/** Most connections one client may watch at once. */
export const MAX_WATCHED_CONNECTIONS = 64;

/** A client's watch list, as sent on the event socket or over IPC. */
export const WatchListSchema = z.array(z.string().min(1).max(128)).max(MAX_WATCHED_CONNECTIONS);

/** The connection an event payload belongs to, or null when it is for every client. */
export function eventConnectionId(payload: unknown): string | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const id = (payload as { connectionId?: unknown }).connectionId;
  return typeof id === 'string' ? id : null;
}

/** One client's watched connections; until it says otherwise, the local broker alone. */
export class ConnectionWatch {
  private ids = new Set<string>([LOCAL_CONNECTION_ID]);

  /** Replaces the watch list. Returns false (and keeps the old list) when `ids` is invalid. */
  set(ids: unknown): boolean {
    const parsed = WatchListSchema.safeParse(ids);
    if (!parsed.success) return false;
    this.ids = new Set(parsed.data);
    return true;
  }

  /** Whether an event with `payload` should reach this client. */
  wants(payload: unknown): boolean {
    const id = eventConnectionId(payload);
    return id === null || this.ids.has(id);
  }
}
