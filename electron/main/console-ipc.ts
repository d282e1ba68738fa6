/**
 * The ConsoleApi over Electron IPC: `ipcMain.handle(ConsoleChannel.INVOKE, (event, method, input))`
 * answering a `Result`, and every service event pushed to our windows on `ConsoleChannel.EVENT`
 * as `(eventName, payload)`.
 *
 * Every call's sender frame is checked to be our own top-level page (`app://switchboard/`), so a
 * navigated, framed or foreign page cannot use the bridge; inputs go through the same zod
 * validation as the web host (console-dispatch.ts). Source: ARCHITECTURE §3 (VS Code: every IPC
 * sender validated). The handler is console-ipc-handler.ts.
 */
import { BrowserWindow, ipcMain } from 'electron';
import { CONSOLE_EVENT_NAMES, ConsoleChannel, type ConsoleService } from '../../shared/console-api';
import { ConnectionWatch } from '../services/connection-watch';
import { consoleInvokeHandler } from './console-ipc-handler';
import { isTrustedFrame } from './window-policy';

/** Registers the IPC handler and event forwarding; returns a function that removes both. */
export function registerConsoleIpc(
  service: ConsoleService,
  onInternal?: (error: unknown, method: string) => void,
): () => void {
  ipcMain.handle(ConsoleChannel.INVOKE, consoleInvokeHandler(service, onInternal));
  // Each window's watched connections (ConsoleApi.watchConnections), by webContents id.
  const watches = new Map<number, ConnectionWatch>();
  const watchOf = (id: number): ConnectionWatch => {
    let watch = watches.get(id);
    if (!watch) {
      watch = new ConnectionWatch();
      watches.set(id, watch);
    }
    return watch;
  };
  const onWatch = (event: Electron.IpcMainEvent, ids: unknown): void => {
    if (!isTrustedFrame(event.senderFrame)) return;
    const { id } = event.sender;
    if (!watches.has(id)) event.sender.once('destroyed', () => watches.delete(id));
    watchOf(id).set(ids);
  };
  ipcMain.on(ConsoleChannel.WATCH, onWatch);
  const unsubscribers = CONSOLE_EVENT_NAMES.map((name) =>
    service.on(name, (payload) => {
      for (const window of BrowserWindow.getAllWindows()) {
        const contents = window.webContents;
        if (
          !contents.isDestroyed() &&
          isTrustedFrame(contents.mainFrame) &&
          watchOf(contents.id).wants(payload)
        ) {
          contents.send(ConsoleChannel.EVENT, name, payload);
        }
      }
    }),
  );
  return () => {
    ipcMain.removeHandler(ConsoleChannel.INVOKE);
    ipcMain.removeListener(ConsoleChannel.WATCH, onWatch);
    unsubscribers.forEach((unsubscribe) => unsubscribe());
  };
}
