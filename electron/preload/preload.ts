/**
 * Sandboxed preload: exposes `window.switchboard` = ConsoleApi and nothing more. One function per
 * `CONSOLE_METHOD_NAMES` entry forwarding to `ipcRenderer.invoke(ConsoleChannel.INVOKE, …)`, plus
 * `on(event, listener)` for the event streams. No ipcRenderer, no Node objects cross the bridge.
 * Bundled to a single CommonJS file (a sandboxed preload cannot load modules).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  CONSOLE_EVENT_NAMES,
  CONSOLE_METHOD_NAMES,
  ConsoleChannel,
  type ConsoleEventStreamName as ConsoleEventName,
} from '../../shared/console-channels';

const methods = Object.fromEntries(
  CONSOLE_METHOD_NAMES.map((name) => [
    name,
    (input: unknown) => ipcRenderer.invoke(ConsoleChannel.INVOKE, name, input ?? {}),
  ]),
);

function on(event: ConsoleEventName, listener: (payload: unknown) => void): () => void {
  if (!CONSOLE_EVENT_NAMES.includes(event) || typeof listener !== 'function') {
    throw new TypeError(`Unknown console event: ${String(event)}`);
  }
  const handler = (_event: IpcRendererEvent, name: unknown, payload: unknown): void => {
    if (name === event) listener(payload);
  };
  ipcRenderer.on(ConsoleChannel.EVENT, handler);
  return () => {
    ipcRenderer.removeListener(ConsoleChannel.EVENT, handler);
  };
}

/** The connections this window shows: only their events are delivered (ConsoleApi contract). */
function watchConnections(connectionIds: readonly string[]): void {
  if (!Array.isArray(connectionIds)) throw new TypeError('connectionIds must be an array');
  ipcRenderer.send(ConsoleChannel.WATCH, connectionIds.map(String));
}

contextBridge.exposeInMainWorld('switchboard', Object.freeze({ ...methods, on, watchConnections }));
