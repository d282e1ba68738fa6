/**
 * Window creation and the app-wide web-contents lockdown: sandboxed renderer with context
 * isolation and no Node, navigation limited to our own pages, no new windows, no webviews,
 * every permission request denied except desktop notifications for our own pages (new
 * authorization requests, issue 12).
 */
import { app, BrowserWindow, session, shell } from 'electron';
import { APP_URL, isAppUrl } from './app-protocol';

/** Installs the lockdown for every web contents created from now on. Call once, before windows. */
export function lockDownWebContents(): void {
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback) =>
    callback(permission === 'notifications' && isAppUrl(contents.getURL())),
  );
  session.defaultSession.setPermissionCheckHandler(
    (_contents, permission, requestingOrigin) =>
      permission === 'notifications' && isAppUrl(requestingOrigin),
  );
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      // Documentation links open in the user's browser; nothing opens inside the app.
      if (url.startsWith('https://')) void shell.openExternal(url);
      return { action: 'deny' };
    });
  });
}

/** Opens the console window on `app://switchboard/index.html`. */
export function createMainWindow(preloadPath: string): BrowserWindow {
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    title: 'Switchboard',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(APP_URL);
  return window;
}
