/**
 * Electron main process: app lifecycle only. Builds the same services as the web host
 * (local-console.ts) with the broker in a `utilityProcess`, exposes them over IPC, opens the window,
 * and stops the broker before quitting.
 *
 * Layout at run time (scripts/build-electron.mjs): dist/electron/{main.js, preload.cjs,
 * broker-host.mjs, broker-cli.mjs}, dist/renderer/ (the built UI). Broker data lives in
 * `<userData>/broker-data`; the broker listens on 127.0.0.1:17352.
 */
import { app, BrowserWindow, dialog } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Protocol } from '../../shared/protocol-events';
import { createLocalConsole, type LocalConsole } from '../services/local-console';
import { DEFAULT_LOCAL_MQTT_PORT } from '../web/cli-flags';
import { handleAppProtocol, registerAppScheme } from './app-protocol';
import { registerConsoleIpc } from './console-ipc';
import { createMainWindow, lockDownWebContents } from './main-window';
import { createUtilityProcessLauncher } from './utility-process-launcher';

const here = path.dirname(fileURLToPath(import.meta.url));
const PRELOAD = path.join(here, 'preload.cjs');
const BROKER_HOST = path.join(here, 'broker-host.mjs');
const RENDERER_DIR = path.join(here, '..', 'renderer');

registerAppScheme();

let local: LocalConsole | null = null;
let quitting = false;

async function onReady(): Promise<void> {
  handleAppProtocol(RENDERER_DIR);
  lockDownWebContents();
  local = createLocalConsole({
    brokerPort: Protocol.DEFAULT_PORT,
    mqttPort: DEFAULT_LOCAL_MQTT_PORT,
    dataDir: path.join(app.getPath('userData'), 'broker-data'),
    launcher: createUtilityProcessLauncher({ entry: BROKER_HOST }),
    // Later step (issue 12): a `safeStorage`-backed SecretStore here, refusing the `basic_text`
    // backend unless the user opts in. Until then the admin token lives in a 0600 file.
  });
  registerConsoleIpc(local.service, (error, method) =>
    console.error(`console method ${method} failed`, error),
  );
  createMainWindow(PRELOAD);
  // A broker that cannot start is shown on the Overview (state `failed` + error), not as a crash.
  local
    .startBroker()
    .catch((error: unknown) => console.error('local broker did not start:', error));
}

if (!app.requestSingleInstanceLock()) {
  // A second instance would fight the first one for the broker port.
  app.quit();
} else {
  app.on('second-instance', () => {
    const [window] = BrowserWindow.getAllWindows();
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });
  app.whenReady().then(onReady, (error: unknown) => {
    dialog.showErrorBox('Switchboard could not start', String(error));
    app.exit(1);
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && local) createMainWindow(PRELOAD);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    if (quitting || !local) return;
    // Stop the broker cleanly (SIGTERM, then SIGKILL after 5 s) before the app goes away.
    event.preventDefault();
    quitting = true;
    void local.close().finally(() => app.quit());
  });
}
