/**
 * ConsoleApi over the web host: `POST /console-api/call/<method>` with the per-launch secret as
 * Bearer token, and one shared WebSocket for the event streams (hello frame first, reconnecting
 * with backoff after drops; not after a refused hello).
 */
import {
  CONSOLE_METHOD_NAMES,
  ConsoleChannel,
  type ConsoleApi,
  type ConsoleEventName,
  type ConsoleSocketFrame,
  type Result,
} from '../../../shared/console-api';
import type { ConnectionState, ConsoleClient } from './console-client';

/** Largest call body sent with `keepalive` (characters; the browser's budget is 64 KiB). */
const KEEPALIVE_MAX_BODY = 16_384;

/** Close code the host uses for a missing or wrong hello (electron/web/event-socket.ts). */
const CLOSE_UNAUTHORIZED = 4401;

export interface WebConsoleOptions {
  token: string;
  /** Base like `http://127.0.0.1:17353`. Default: the page's origin. */
  origin?: string;
}

export function createWebConsoleClient({
  token,
  origin = window.location.origin,
}: WebConsoleOptions): ConsoleClient {
  const listeners = new Map<ConsoleEventName, Set<(payload: unknown) => void>>();
  const stateListeners = new Set<(state: ConnectionState) => void>();
  let state: ConnectionState = 'connecting';
  let socket: WebSocket | null = null;
  let retryMs = 500;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  let watched: string[] | null = null;
  const sendWatch = (): void => {
    if (watched && socket?.readyState === WebSocket.OPEN && state === 'online') {
      socket.send(
        JSON.stringify({ type: 'watch', connectionIds: watched } satisfies ConsoleSocketFrame),
      );
    }
  };

  const setState = (next: ConnectionState): void => {
    state = next;
    stateListeners.forEach((listener) => listener(next));
  };

  const call = async (method: string, input: unknown): Promise<Result<unknown>> => {
    try {
      const body = JSON.stringify(input ?? {});
      const response = await fetch(
        `${origin}${ConsoleChannel.CALL_PREFIX}${encodeURIComponent(method)}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
          cache: 'no-store',
          // A call made as the page goes away (a tap's stop, use-page-leave.ts) still reaches
          // the host. Browsers cap keepalive bodies at 64 KiB in all: large ones go without.
          keepalive: body.length <= KEEPALIVE_MAX_BODY,
        },
      );
      return (await response.json()) as Result<unknown>;
    } catch (error) {
      return {
        ok: false,
        error: {
          code: 'SWB_ERR_INTERNAL',
          message: `Cannot reach the console host: ${(error as Error).message}`,
        },
      };
    }
  };

  const connect = (): void => {
    if (closed || socket) return;
    const ws = new WebSocket(`${origin.replace(/^http/, 'ws')}${ConsoleChannel.EVENTS_PATH}`);
    socket = ws;
    ws.onopen = () =>
      ws.send(JSON.stringify({ type: 'hello', token } satisfies ConsoleSocketFrame));
    ws.onmessage = (message: MessageEvent<string>) => {
      let frame: ConsoleSocketFrame;
      try {
        frame = JSON.parse(message.data) as ConsoleSocketFrame;
      } catch {
        return;
      }
      if (frame.type === 'ready') {
        retryMs = 500;
        state = 'online';
        // A new socket starts with the host's default list: say again what this page shows.
        sendWatch();
        setState('online');
      } else if (frame.type === 'event') {
        listeners.get(frame.event)?.forEach((listener) => listener(frame.payload));
      }
    };
    ws.onclose = (event: CloseEvent) => {
      socket = null;
      if (closed) return;
      if (event.code === CLOSE_UNAUTHORIZED) {
        setState('unauthorized');
        return;
      }
      setState('offline');
      retryTimer = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 5_000);
    };
  };

  const methods = Object.fromEntries(
    CONSOLE_METHOD_NAMES.map((name) => [name, (input: unknown) => call(name, input)]),
  );
  const api = {
    ...methods,
    on(event: ConsoleEventName, listener: (payload: never) => void) {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      const entry = listener as (payload: unknown) => void;
      set.add(entry);
      connect();
      return () => {
        set.delete(entry);
      };
    },
    watchConnections(connectionIds: readonly string[]) {
      watched = [...connectionIds];
      sendWatch();
    },
  } as unknown as ConsoleApi;

  return {
    api,
    connectionState: () => state,
    onConnectionState(listener) {
      stateListeners.add(listener);
      return () => {
        stateListeners.delete(listener);
      };
    },
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      socket?.close();
      socket = null;
    },
  };
}
