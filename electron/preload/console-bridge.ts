/**
 * The object the preload exposes as `window.switchboard`: one function per ConsoleApi method
 * forwarding to `invoke(ConsoleChannel.INVOKE, name, input)`, plus `on(event, listener)` for the
 * event streams and `watchConnections(ids)` (which connections' events this window receives) —
 * and nothing else (no ipcRenderer, no Node object, no generic `send`). Frozen.
 * Pure (no Electron import): preload.ts passes ipcRenderer's functions; tests read the object.
 */
import {
  CONSOLE_EVENT_NAMES,
  CONSOLE_METHOD_NAMES,
  ConsoleChannel,
  type ConsoleEventStreamName as ConsoleEventName,
} from '../../shared/console-channels';

export interface BridgeTransport {
  invoke(channel: string, method: string, input: unknown): Promise<unknown>;
  /** Calls `listener(name, payload)` for every event message; returns a remover. */
  subscribe(channel: string, listener: (name: unknown, payload: unknown) => void): () => void;
  /** One-way message to the main process (`ipcRenderer.send`). */
  send(channel: string, payload: unknown): void;
}

export function buildConsoleBridge(transport: BridgeTransport): Readonly<Record<string, unknown>> {
  const methods = Object.fromEntries(
    CONSOLE_METHOD_NAMES.map((name) => [
      name,
      (input: unknown) => transport.invoke(ConsoleChannel.INVOKE, name, input ?? {}),
    ]),
  );
  const on = (event: ConsoleEventName, listener: (payload: unknown) => void): (() => void) => {
    if (!CONSOLE_EVENT_NAMES.includes(event) || typeof listener !== 'function') {
      throw new TypeError(`Unknown console event: ${String(event)}`);
    }
    return transport.subscribe(ConsoleChannel.EVENT, (name, payload) => {
      if (name === event) listener(payload);
    });
  };
  const watchConnections = (connectionIds: readonly string[]): void => {
    if (!Array.isArray(connectionIds)) throw new TypeError('connectionIds must be an array');
    transport.send(ConsoleChannel.WATCH, connectionIds.map(String));
  };
  return Object.freeze({ ...methods, on, watchConnections });
}
