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
import { BrowserWindow, dialog, ipcMain } from 'electron';
import { CONSOLE_EVENT_NAMES, ConsoleChannel, type ConsoleService } from '../../shared/console-api';
import { ConfirmationGate, type ConfirmGesture } from '../services/confirmation-gate';
import { ConnectionWatch } from '../services/connection-watch';
import { consoleInvokeHandler } from './console-ipc-handler';
import { isTrustedFrame } from './window-policy';

/**
 * The desktop app's gesture for a dangerous call: a native, modal dialog naming the action. No
 * page script can answer it, so a token exists only once the operator clicked "Go ahead".
 */
const askNatively: ConfirmGesture = async ({ summary }) => {
  const parent = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
  const options: Electron.MessageBoxOptions = {
    type: 'warning',
    buttons: ['Cancel', 'Go ahead'],
    defaultId: 1,
    cancelId: 0,
    noLink: true,
    title: 'Switchboard',
    message: summary,
    detail: 'Confirm this action in the console.',
  };
  const { response } = parent
    ? await dialog.showMessageBox(parent, options)
    : await dialog.showMessageBox(options);
  return response === 1;
};

/** Registers the IPC handler and event forwarding; returns a function that removes both. */
export function registerConsoleIpc(
  service: ConsoleService,
  onInternal?: (error: unknown, method: string) => void,
): () => void {
  const gate = new ConfirmationGate({ gesture: askNatively });
  ipcMain.handle(ConsoleChannel.INVOKE, consoleInvokeHandler(service, onInternal, gate));
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
