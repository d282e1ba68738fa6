/**
 * Sandboxed preload: exposes `window.switchboard` = ConsoleApi and nothing more
 * (console-bridge.ts builds the object). The listener wrapper drops the IpcRendererEvent, so no
 * Electron object crosses the bridge. Bundled to a single CommonJS file (a sandboxed preload
 * cannot load modules).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildConsoleBridge } from './console-bridge';

const bridge = buildConsoleBridge({
  invoke: (channel, method, input) => ipcRenderer.invoke(channel, method, input),
  send: (channel, payload) => ipcRenderer.send(channel, payload),
  subscribe: (channel, listener) => {
    const handler = (_event: IpcRendererEvent, name: unknown, payload: unknown): void =>
      listener(name, payload);
    ipcRenderer.on(channel, handler);
    return () => {
      ipcRenderer.removeListener(channel, handler);
    };
  },
});

contextBridge.exposeInMainWorld('switchboard', bridge);
