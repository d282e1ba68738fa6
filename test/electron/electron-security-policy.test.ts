/**
 * The desktop app's security checklist (issue 13, "Electron"), asserted on exactly the values
 * and functions the app installs: the BrowserWindow options, the CSP of app:// pages and of the
 * web host, the navigation / new-window / webview / permission handlers (called with fake
 * events), the IPC sender check and handler, the preload's bridge and the menu. main-window.ts
 * and console-ipc.ts are checked to install these very functions.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appMenuTemplate } from '../../electron/main/app-menu';
import { serveAppFile } from '../../electron/main/app-files';
import { APP_URL, isAppUrl } from '../../electron/main/app-origin';
import { consoleInvokeHandler } from '../../electron/main/console-ipc-handler';
import {
  browserWindowOptions,
  denyDevicePermission,
  denyPermissionCheck,
  denyPermissionRequest,
  preventNavigation,
  preventWebview,
  windowOpenHandler,
  isTrustedSender,
  type IpcSenderEvent,
} from '../../electron/main/window-policy';
import { buildConsoleBridge } from '../../electron/preload/console-bridge';
import {
  CONTENT_SECURITY_POLICY,
  parseContentSecurityPolicy,
} from '../../electron/services/content-security-policy';
import { HostPolicy } from '../../electron/web/web-security';
import type { ConsoleService } from '../../shared/console-api';
import {
  CONSOLE_EVENT_NAMES,
  CONSOLE_METHOD_NAMES,
  ConsoleChannel,
} from '../../shared/console-channels';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const source = (file: string): string => readFileSync(path.join(REPO, file), 'utf8');

const fakeEvent = () => {
  const event = { prevented: 0, preventDefault: () => void event.prevented++ };
  return event;
};

describe('BrowserWindow options', () => {
  const options = browserWindowOptions('/app/preload.cjs');
  const prefs = options.webPreferences ?? {};

  it('isolates and sandboxes the renderer, with no Node anywhere', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
  });

  it('keeps web security on and webviews, insecure content and experimental features off', () => {
    expect(prefs.webSecurity).toBe(true);
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.webviewTag).toBe(false);
    expect(prefs.experimentalFeatures).toBe(false);
    expect(prefs.navigateOnDragDrop).toBe(false);
  });

  it('loads our preload and stays hidden until ready', () => {
    expect(prefs.preload).toBe('/app/preload.cjs');
    expect(options.show).toBe(false);
  });

  it('uses the saved bounds when given, the default size otherwise', () => {
    const placed = browserWindowOptions('/p', { x: 10, y: 20, width: 900, height: 700 });
    expect(placed).toMatchObject({ x: 10, y: 20, width: 900, height: 700 });
    expect(options.x).toBeUndefined();
    expect(placed.webPreferences).toEqual({ ...prefs, preload: '/p' });
  });
});

describe('Content-Security-Policy', () => {
  const strictDirectives = (policy: string) => {
    const csp = parseContentSecurityPolicy(policy);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('frame-src')).toEqual(["'none'"]);
    expect(csp.get('worker-src')).toEqual(["'none'"]);
    expect(policy).not.toMatch(/unsafe-|\*|https?:|data:.*script/);
    return csp;
  };

  it('app:// pages: own scripts and styles only, no network at all', () => {
    const csp = strictDirectives(CONTENT_SECURITY_POLICY);
    expect(csp.get('connect-src')).toEqual(["'none'"]);
  });

  it('web host pages: the same policy, connecting only to itself on loopback', () => {
    const csp = strictDirectives(new HostPolicy('127.0.0.1', 17353).contentSecurityPolicy());
    expect(csp.get('connect-src')).toEqual([
      "'self'",
      'ws://127.0.0.1:17353',
      'ws://localhost:17353',
    ]);
  });

  describe('app:// protocol responses', () => {
    let dir: TempDir;
    beforeAll(async () => {
      dir = await makeTempDir('switchboard-app-files-');
      await mkdir(path.join(dir.path, 'renderer', 'assets'), { recursive: true });
      await writeFile(path.join(dir.path, 'renderer', 'index.html'), '<!doctype html><p>ok</p>');
      await writeFile(path.join(dir.path, 'renderer', 'assets', 'app.js'), 'void 0;');
      await writeFile(path.join(dir.path, 'secret.txt'), 'outside');
    });
    afterAll(() => dir.remove());

    it('serves the page with the CSP header', async () => {
      const response = await serveAppFile(path.join(dir.path, 'renderer'), APP_URL);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const script = await serveAppFile(
        path.join(dir.path, 'renderer'),
        'app://switchboard/assets/app.js',
      );
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    });

    it('never serves files outside the renderer directory, nor other hosts', async () => {
      const rendererDir = path.join(dir.path, 'renderer');
      for (const url of [
        'app://switchboard/../secret.txt',
        'app://switchboard/%2e%2e/secret.txt',
        'app://switchboard/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
        'app://switchboard/%00index.html',
        'app://other/index.html',
        'app://switchboard/missing.js',
        'not a url',
      ]) {
        const response = await serveAppFile(rendererDir, url);
        expect(response.status, url).toBe(404);
      }
    });
  });
});

describe('navigation, new windows, webviews', () => {
  it('cancels every navigation, even to our own origin', () => {
    for (const url of [APP_URL, 'https://example.com/', 'file:///etc/passwd']) {
      const event = fakeEvent();
      preventNavigation(event);
      expect(event.prevented, url).toBe(1);
    }
  });

  it('cancels every webview', () => {
    const event = fakeEvent();
    preventWebview(event);
    expect(event.prevented).toBe(1);
  });

  it('opens nothing inside the app; https links go to the browser, other schemes nowhere', async () => {
    const openExternal = vi.fn(async () => undefined);
    const handler = windowOpenHandler(openExternal);
    for (const url of [
      'https://github.com/example/docs',
      'http://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      APP_URL,
      'smb://host/share',
      'garbage',
    ]) {
      expect(handler({ url }), url).toEqual({ action: 'deny' });
    }
    await Promise.resolve();
    expect(openExternal.mock.calls).toEqual([['https://github.com/example/docs']]);
  });
});

describe('permissions', () => {
  it('denies every permission request and check but notifications for our own pages', () => {
    const ours = { getURL: () => 'app://switchboard/index.html' };
    const foreign = { getURL: () => 'https://evil.example/' };
    for (const permission of [
      'media',
      'geolocation',
      'clipboard-read',
      'openExternal',
      'unknown',
    ]) {
      const callback = vi.fn();
      denyPermissionRequest(ours, permission, callback);
      expect(callback.mock.calls, permission).toEqual([[false]]);
      expect(denyPermissionCheck(null, permission, 'app://switchboard')).toBe(false);
    }
    const granted = vi.fn();
    denyPermissionRequest(ours, 'notifications', granted);
    expect(granted.mock.calls).toEqual([[true]]);
    for (const contents of [foreign, null]) {
      const refused = vi.fn();
      denyPermissionRequest(contents, 'notifications', refused);
      expect(refused.mock.calls).toEqual([[false]]);
    }
    expect(denyPermissionCheck(null, 'notifications', 'app://switchboard')).toBe(true);
    expect(denyPermissionCheck(null, 'notifications', 'https://evil.example')).toBe(false);
    expect(denyDevicePermission()).toBe(false);
  });
});

describe('IPC sender check', () => {
  const frame = (url: string, parent: unknown = null): IpcSenderEvent => ({
    senderFrame: { url, parent },
  });

  it('trusts only the main frame of our own app:// page', () => {
    expect(isTrustedSender(frame(APP_URL))).toBe(true);
    expect(isTrustedSender(frame('app://switchboard/index.html#/requests'))).toBe(true);
    expect(isTrustedSender(frame(APP_URL, { url: APP_URL }))).toBe(false);
    expect(isTrustedSender({ senderFrame: null })).toBe(false);
    expect(isTrustedSender({ senderFrame: undefined })).toBe(false);
    for (const url of [
      'https://switchboard/index.html',
      'file:///index.html',
      'app://switchboard.evil.com/index.html',
      'app://evil/index.html',
      'app://user@switchboard/index.html',
      'app://switchboard:8080/index.html',
      'devtools://devtools/bundled/index.html',
      '',
    ]) {
      expect(isTrustedSender(frame(url)), url).toBe(false);
      expect(isAppUrl(url), url).toBe(false);
    }
  });

  it('the IPC handler refuses an untrusted sender without calling the service', async () => {
    const getLocalBroker = vi.fn(async () => ({ state: 'running' }));
    const service = { getLocalBroker } as unknown as ConsoleService;
    const handle = consoleInvokeHandler(service);
    const refused = await handle(frame('https://evil.example/'), 'getLocalBroker', {});
    expect(refused).toMatchObject({ ok: false, error: { code: 'SWB_ERR_FORBIDDEN_ORIGIN' } });
    const framed = await handle(frame(APP_URL, {}), 'getLocalBroker', {});
    expect(framed).toMatchObject({ ok: false, error: { code: 'SWB_ERR_FORBIDDEN_ORIGIN' } });
    expect(getLocalBroker).not.toHaveBeenCalled();
    const answered = await handle(frame(APP_URL), 'getLocalBroker', {});
    expect(answered).toEqual({ ok: true, value: { state: 'running' } });
    const unknown = await handle(frame(APP_URL), 'constructor', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'SWB_ERR_UNKNOWN_METHOD' } });
  });
});

describe('preload bridge', () => {
  it('exposes the ConsoleApi methods and `on`, nothing else, frozen', async () => {
    const invoke = vi.fn(async () => ({ ok: true, value: 1 }));
    const listeners: ((name: unknown, payload: unknown) => void)[] = [];
    const send = vi.fn();
    const bridge = buildConsoleBridge({
      invoke,
      send,
      subscribe: (_channel, listener) => {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    });
    expect(Object.keys(bridge).sort()).toEqual(
      [...CONSOLE_METHOD_NAMES, 'on', 'watchConnections'].sort(),
    );
    expect(Object.isFrozen(bridge)).toBe(true);
    for (const value of Object.values(bridge)) expect(typeof value).toBe('function');

    const [method] = CONSOLE_METHOD_NAMES;
    await (bridge[method] as (input?: unknown) => Promise<unknown>)();
    expect(invoke).toHaveBeenCalledWith(ConsoleChannel.INVOKE, method, {});

    const on = bridge.on as (event: string, listener: (payload: unknown) => void) => () => void;
    expect(() => on('ipcRenderer', () => undefined)).toThrow(TypeError);
    const received: unknown[] = [];
    const off = on(CONSOLE_EVENT_NAMES[0], (payload) => received.push(payload));
    listeners.forEach((listener) => listener('someOtherEvent', 'x'));
    listeners.forEach((listener) => listener(CONSOLE_EVENT_NAMES[0], 'y'));
    expect(received).toEqual(['y']);
    off();
    expect(listeners).toHaveLength(0);
    (bridge.watchConnections as (ids: string[]) => void)(['local', 'prod']);
    expect(send).toHaveBeenCalledWith(ConsoleChannel.WATCH, ['local', 'prod']);
  });

  it('preload.ts exposes that bridge and only through contextBridge', () => {
    const preload = source('electron/preload/preload.ts');
    expect(preload).toContain("contextBridge.exposeInMainWorld('switchboard', bridge)");
    expect(preload.match(/exposeInMainWorld/g)).toHaveLength(1);
  });
});

describe('application menu', () => {
  const roles = (template: ReturnType<typeof appMenuTemplate>): string[] =>
    template.flatMap((item) => [
      ...(item.role ? [item.role] : []),
      ...(Array.isArray(item.submenu) ? roles(item.submenu) : []),
    ]);
  const hasClick = (template: ReturnType<typeof appMenuTemplate>): boolean =>
    template.some(
      (item) => !!item.click || (Array.isArray(item.submenu) && hasClick(item.submenu)),
    );

  it('has no developer tools or reload in packaged builds, on every platform', () => {
    for (const platform of ['darwin', 'linux', 'win32'] as const) {
      const packaged = roles(appMenuTemplate({ platform, packaged: true }));
      expect(packaged).not.toContain('toggleDevTools');
      expect(packaged).not.toContain('reload');
      expect(packaged).not.toContain('forceReload');
      expect(packaged).toEqual(expect.arrayContaining(['quit', 'copy', 'paste', 'selectAll']));
      expect(roles(appMenuTemplate({ platform, packaged: false }))).toContain('toggleDevTools');
      expect(hasClick(appMenuTemplate({ platform, packaged: true }))).toBe(false);
    }
    expect(appMenuTemplate({ platform: 'darwin', packaged: true })[0]?.label).toBe('Switchboard');
  });
});

describe('the app installs these policies', () => {
  it('main-window.ts wires each handler and the options builder', () => {
    const glue = source('electron/main/main-window.ts');
    for (const line of [
      'setPermissionRequestHandler(denyPermissionRequest)',
      'setPermissionCheckHandler(denyPermissionCheck)',
      'setDevicePermissionHandler(denyDevicePermission)',
      "on('will-navigate', preventNavigation)",
      "on('will-frame-navigate', preventNavigation)",
      "on('will-redirect', preventNavigation)",
      "on('will-attach-webview', preventWebview)",
      'setWindowOpenHandler(windowOpenHandler(',
      'new BrowserWindow(browserWindowOptions(',
    ]) {
      expect(glue, line).toContain(line);
    }
    expect(source('electron/main/console-ipc.ts')).toContain(
      'ipcMain.handle(ConsoleChannel.INVOKE, consoleInvokeHandler(service, onInternal, gate))',
    );
    expect(source('electron/main/app-protocol.ts')).toContain(
      'serveAppFile(rendererDir, request.url)',
    );
    const main = source('electron/main/main.ts');
    expect(main).toContain('app.requestSingleInstanceLock()');
    expect(main).toContain('new SafeStorageSecretStore(');
    expect(main).toContain('Menu.setApplicationMenu(');
  });
});
