/**
 * Electron main process: app lifecycle only. Builds the same services as the web host
 * (local-console.ts) with the broker in a `utilityProcess` and secrets in the OS keychain
 * (SafeStorageSecretStore), exposes them over IPC, installs the menu and the web-contents
 * lockdown (window-policy.ts), opens the window where it was (window-state.ts), and stops the
 * broker before quitting. One instance at a time: a second launch focuses the first window.
 *
 * Layout at run time (scripts/build-electron.mjs): dist/electron/{main.js, preload.cjs,
 * broker-host.mjs, broker-cli.mjs}, dist/renderer/ (the built UI). Broker data lives in
 * `<userData>/broker-data`, secrets and window state in `<userData>`; the broker listens on
 * 127.0.0.1:17352.
 */
import { app, BrowserWindow, dialog, Menu, safeStorage } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Protocol } from '../../shared/protocol-events';
import { createLocalConsole, type LocalConsole } from '../services/local-console';
import { FileSecretStore } from '../services/secret-store';
import { DEFAULT_LOCAL_MQTT_PORT } from '../web/cli-flags';
import {
  plainTextSecretsAllowed,
  SafeStorageSecretStore,
} from '../services/safe-storage-secret-store';
import { appMenuTemplate } from './app-menu';
import { handleAppProtocol, registerAppScheme } from './app-protocol';
import { registerConsoleIpc } from './console-ipc';
import { createMainWindow, lockDownWebContents } from './main-window';
import { createUtilityProcessLauncher } from './utility-process-launcher';
import { WINDOW_STATE_FILE_NAME } from './window-state';

const here = path.dirname(fileURLToPath(import.meta.url));
const PRELOAD = path.join(here, 'preload.cjs');
const BROKER_HOST = path.join(here, 'broker-host.mjs');
const RENDERER_DIR = path.join(here, '..', 'renderer');

registerAppScheme();

let local: LocalConsole | null = null;
let quitting = false;

const windowStateFile = (): string => path.join(app.getPath('userData'), WINDOW_STATE_FILE_NAME);

function openWindow(): BrowserWindow {
  return createMainWindow(PRELOAD, windowStateFile());
}

async function onReady(): Promise<void> {
  handleAppProtocol(RENDERER_DIR);
  lockDownWebContents();
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      appMenuTemplate({ platform: process.platform, packaged: app.isPackaged }),
    ),
  );
  // Throws SecretStoreUnavailableError (shown by the caller) when no OS keychain is usable.
  const secrets = new SafeStorageSecretStore({
    safeStorage,
    dataDir: app.getPath('userData'),
    allowPlainText: plainTextSecretsAllowed(process.argv, process.env),
  });
  const brokerData = path.join(app.getPath('userData'), 'broker-data');
  // Earlier builds kept the secrets in a 0600 file there: move them into the keychain, once.
  new FileSecretStore(brokerData).moveInto(secrets);
  local = createLocalConsole({
    brokerPort: Protocol.DEFAULT_PORT,
    mqttPort: DEFAULT_LOCAL_MQTT_PORT,
    dataDir: brokerData,
    launcher: createUtilityProcessLauncher({ entry: BROKER_HOST }),
    secrets,
  });
  registerConsoleIpc(local.service, (error, method) =>
    console.error(`console method ${method} failed`, error),
  );
  openWindow();
  // A broker that cannot start is shown on the Overview (state `failed` + error), not as a crash.
  local
    .startBroker()
    .catch((error: unknown) => console.error('local broker did not start:', error));
}

if (!app.requestSingleInstanceLock()) {
  // A second instance would fight the first one for the broker port and the SQLite files.
  app.quit();
} else {
  app.on('second-instance', () => {
    const [window] = BrowserWindow.getAllWindows();
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    } else if (local) {
      // macOS keeps running with no window: a second launch opens one.
      openWindow();
    }
  });
  app
    .whenReady()
    .then(onReady)
    .catch((error: unknown) => {
      dialog.showErrorBox(
        'Switchboard could not start',
        error instanceof Error ? error.message : String(error),
      );
      app.exit(1);
    });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && local) openWindow();
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
