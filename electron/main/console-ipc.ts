/**
 * The ConsoleApi over Electron IPC: `ipcMain.handle(ConsoleChannel.INVOKE, (event, method, input))`
 * answering a `Result`, and every service event pushed to our windows on `ConsoleChannel.EVENT`
 * as `(eventName, payload)`.
 *
 * Every call's sender frame is checked to be our own top-level page (`app://switchboard/`), so a
 * navigated, framed or foreign page cannot use the bridge; inputs go through the same zod
 * validation as the web host (console-dispatch.ts). Source: ARCHITECTURE §3 (VS Code: every IPC
 * sender validated).
 */
import { BrowserWindow, ipcMain, type WebFrameMain } from 'electron';
import { CONSOLE_EVENT_NAMES, ConsoleChannel, type ConsoleService } from '../../shared/console-api';
import { errorInfo } from '../../shared/error-catalogue';
import { ConnectionWatch } from '../services/connection-watch';
import { dispatchConsoleCall } from '../services/console-dispatch';
import { isAppUrl } from './app-protocol';

/** True when `frame` is the main frame of one of our pages. */
export function isTrustedFrame(frame: WebFrameMain | null | undefined): boolean {
  return !!frame && frame.parent === null && isAppUrl(frame.url);
}

/** Registers the IPC handler and event forwarding; returns a function that removes both. */
export function registerConsoleIpc(
  service: ConsoleService,
  onInternal?: (error: unknown, method: string) => void,
): () => void {
  ipcMain.handle(ConsoleChannel.INVOKE, async (event, method: unknown, input: unknown) => {
    if (!isTrustedFrame(event.senderFrame)) {
      return {
        ok: false,
        error: errorInfo('SWB_ERR_FORBIDDEN_ORIGIN', 'IPC sender is not the Switchboard app'),
      };
    }
    return dispatchConsoleCall(service, method, input, onInternal);
  });
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
