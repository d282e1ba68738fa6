/**
 * Window creation and the app-wide web-contents lockdown, installing the policies of
 * window-policy.ts (options and handlers) and window-state.ts (bounds kept across launches).
 * Electron glue only.
 */
import { app, BrowserWindow, screen, session, shell } from 'electron';
import { APP_URL } from './app-origin';
import {
  browserWindowOptions,
  denyDevicePermission,
  denyPermissionCheck,
  denyPermissionRequest,
  MIN_WINDOW_SIZE,
  preventNavigation,
  preventWebview,
  windowOpenHandler,
} from './window-policy';
import {
  fitWindowState,
  readWindowState,
  trackWindowState,
  writeWindowState,
} from './window-state';

/** Installs the lockdown for every web contents created from now on. Call once, before windows. */
export function lockDownWebContents(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler(denyPermissionRequest);
  ses.setPermissionCheckHandler(denyPermissionCheck);
  ses.setDevicePermissionHandler(denyDevicePermission);
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', preventNavigation);
    contents.on('will-frame-navigate', preventNavigation);
    contents.on('will-redirect', preventNavigation);
    contents.on('will-attach-webview', preventWebview);
    contents.setWindowOpenHandler(windowOpenHandler((url) => shell.openExternal(url)));
  });
}

/**
 * Opens the console window on `app://switchboard/index.html`, where it was last time if that
 * place is still on a display (`stateFile`, window-state.ts), and keeps tracking it.
 */
export function createMainWindow(preloadPath: string, stateFile: string): BrowserWindow {
  const workAreas = screen.getAllDisplays().map((display) => display.workArea);
  const saved = fitWindowState(readWindowState(stateFile), workAreas, MIN_WINDOW_SIZE);
  const window = new BrowserWindow(browserWindowOptions(preloadPath, saved?.bounds));
  trackWindowState(window, (state) => writeWindowState(stateFile, state), {
    onError: (error) => console.error('could not save the window state:', error),
  });
  window.once('ready-to-show', () => {
    if (saved?.maximized) window.maximize();
    window.show();
  });
  void window.loadURL(APP_URL);
  return window;
}
