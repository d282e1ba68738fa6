/**
 * The desktop app's security policy as plain values and functions: the BrowserWindow options,
 * the navigation / new-window / webview / permission handlers and the IPC sender check that
 * main-window.ts and console-ipc.ts install. Pure (Electron types only), so the tests call
 * exactly what the app uses with fake events.
 *
 * Checklist (issue 13, "Electron"; Electron security guide): contextIsolation, sandbox, no
 * nodeIntegration (nor in workers or subframes), webSecurity, no insecure content, no webview,
 * no navigation, no new windows, every permission denied, every IPC sender checked.
 */
import type {
  BrowserWindowConstructorOptions,
  HandlerDetails,
  WebPreferences,
  WindowOpenHandlerResponse,
} from 'electron';
import { isAppUrl } from './app-origin';
import type { WindowBounds } from './window-state';

/** The renderer's web preferences; `preload` is added by `browserWindowOptions`. */
export const WEB_PREFERENCES: Readonly<WebPreferences> = Object.freeze({
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  spellcheck: false,
});

/** Default and minimum window size, in DIP. */
export const DEFAULT_WINDOW_SIZE = { width: 1200, height: 800 } as const;
export const MIN_WINDOW_SIZE = { width: 720, height: 480 } as const;

/**
 * Options of the console window: `bounds` (already validated against the displays, see
 * window-state.ts) or the default size centred by Electron; hidden until `ready-to-show`.
 */
export function browserWindowOptions(
  preloadPath: string,
  bounds?: WindowBounds,
): BrowserWindowConstructorOptions {
  return {
    ...(bounds ?? DEFAULT_WINDOW_SIZE),
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    title: 'Switchboard',
    show: false,
    webPreferences: { ...WEB_PREFERENCES, preload: preloadPath },
  };
}

/** The part of an Electron event the handlers use. */
export interface PreventableEvent {
  preventDefault(): void;
}

/**
 * `will-navigate` / `will-redirect` / `will-frame-navigate`: the console is a single page that
 * never navigates, so any navigation (a dropped file, a link, a compromised page) is cancelled.
 */
export function preventNavigation(event: PreventableEvent): void {
  event.preventDefault();
}

/** `will-attach-webview`: no webviews, whatever they would load. */
export function preventWebview(event: PreventableEvent): void {
  event.preventDefault();
}

/**
 * `setWindowOpenHandler`: nothing ever opens inside the app. An `https:` link (documentation)
 * goes to the user's browser through `openExternal`; every other scheme is dropped.
 */
export function windowOpenHandler(
  openExternal: (url: string) => unknown,
): (details: Pick<HandlerDetails, 'url'>) => WindowOpenHandlerResponse {
  return ({ url }) => {
    if (isHttpsUrl(url)) void Promise.resolve(openExternal(url)).catch(() => undefined);
    return { action: 'deny' };
  };
}

function isHttpsUrl(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * `session.setPermissionRequestHandler`: every request (camera, geolocation, clipboard, …) denied,
 * except desktop notifications asked by one of our own pages (the Requests view's alert for a new
 * authorization request, issue 12).
 */
export function denyPermissionRequest(
  webContents: { getURL(): string } | null,
  permission: string,
  callback: (granted: boolean) => void,
): void {
  callback(permission === 'notifications' && !!webContents && isAppUrl(webContents.getURL()));
}

/**
 * `session.setPermissionCheckHandler`: false, except notifications for our own origin.
 * `setDevicePermissionHandler` gets `denyDevicePermission` (always false).
 */
export function denyPermissionCheck(
  _webContents: unknown,
  permission: string,
  requestingOrigin: string,
): boolean {
  return permission === 'notifications' && isAppUrl(requestingOrigin);
}

/** `session.setDevicePermissionHandler`: no USB/HID/serial device, ever. */
export function denyDevicePermission(): boolean {
  return false;
}

/** The part of an IPC event (`IpcMainInvokeEvent`) the sender check reads. */
export interface IpcSenderEvent {
  senderFrame: { url: string; parent: unknown } | null | undefined;
}

/**
 * True when an IPC message comes from the main frame of one of our own pages
 * (`app://switchboard/…`): not a subframe, not a page that got navigated elsewhere, not a
 * destroyed frame (`senderFrame` null).
 */
export function isTrustedSender(event: IpcSenderEvent): boolean {
  return isTrustedFrame(event.senderFrame);
}

/** True for the main frame of one of our pages (also used before pushing events to a window). */
export function isTrustedFrame(frame: IpcSenderEvent['senderFrame']): boolean {
  return !!frame && frame.parent === null && isAppUrl(frame.url);
}
